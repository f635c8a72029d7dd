import Synchronization

/// Values appended from any task or thread, kept in the order they came: ``OrderLog`` (numbers a
/// test's work items record) and ``LineLog`` (lines a log handler receives).
final class AppendLog<Element: Sendable>: Sendable {
    private let storage = Mutex<[Element]>([])

    func append(_ value: Element) { storage.withLock { $0.append(value) } }
    var values: [Element] { storage.withLock { $0 } }
    var count: Int { storage.withLock { $0.count } }
}

typealias OrderLog = AppendLog<Int>
typealias LineLog = AppendLog<String>

/// One value shared between tasks and threads, nil until it is first set.
final class Box<T: Sendable>: Sendable {
    private let stored = Mutex<T?>(nil)

    var value: T? {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
}
