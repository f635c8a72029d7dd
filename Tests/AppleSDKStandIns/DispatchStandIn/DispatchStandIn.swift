// Stand-in for the part of Apple's Dispatch overlay that Linux's Dispatch lacks.
@_exported import Dispatch

/// dispatch/dispatch_queue_t: on Apple platforms `typealias dispatch_queue_t = DispatchQueue`.
public typealias dispatch_queue_t = DispatchQueue
