import SwiftPJSUA
