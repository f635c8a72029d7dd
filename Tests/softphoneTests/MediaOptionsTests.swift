@testable import softphone
import SwiftPJSUA
import Testing

@Suite("softphone's media options (--codecs, --stats-interval, --redirect, --dtmf-method, --detect-inband)")
struct MediaOptionsTests {
    let spec = OptionSpec(valued: MediaOptions.valued, flags: MediaOptions.flags, positionals: 0...0)

    @Test func parsesEveryOption() throws {
        let options = try MediaOptions(Arguments(["--codecs", "opus,PCMU", "--stats-interval", "2.5", "--redirect", "report",
                                                  "--dtmf-method", "info", "--detect-inband"], spec: spec))
        #expect(options.codecs == ["opus", "PCMU"])
        #expect(options.statisticsInterval == .milliseconds(2500))
        #expect(options.redirectPolicy == .report)
        #expect(options.dtmfMethod == .sipInfo)
        #expect(options.detectInband)
        var configuration = PJSUA.Configuration()
        options.apply(to: &configuration)
        #expect(configuration.statisticsInterval == .milliseconds(2500) && configuration.redirectPolicy == .report && configuration.detectsInbandDTMF)
    }

    @Test func defaultsSendRFC4733AndFollowRedirects() throws {
        let options = try MediaOptions(Arguments([], spec: spec))
        #expect(options.codecs == nil && options.statisticsInterval == nil)
        #expect(options.dtmfMethod == .rfc4733 && options.redirectPolicy == .follow && !options.detectInband)
    }

    @Test(arguments: [
        (["--dtmf-method", "sms"], "--dtmf-method must be rfc4733, info or inband, got 'sms'"),
        (["--redirect", "ask"], "--redirect must be follow or report, got 'ask'"),
        (["--codecs", ","], "--codecs takes a comma-separated list of codec names, e.g. opus,PCMU"),
        (["--stats-interval", "0"], "--stats-interval must be a number of seconds in 0.1...3600.0, got '0'"),
    ])
    func rejectsBadValuesWithOneLine(input: [String], message: String) throws {
        let arguments = try Arguments(input, spec: spec)
        #expect(throws: UsageError.self) { try MediaOptions(arguments) }
        do {
            _ = try MediaOptions(arguments)
        } catch {
            #expect(error.description == message)
        }
    }
}
