import CPJSUASupport

extension PJSUA {
    /// Replaces the admission policy of the running engine (see ``AdmissionControl``); takes
    /// effect for the next INVITE.
    public func setAdmissionControl(_ policy: AdmissionControl) throws {
        let run = try requireRunning()
        try policy.validate()
        applyAdmission(policy, maxCalls: run.settings.maxCalls)
    }

    /// How many new calls admission control has refused with 503 in this process.
    public nonisolated var refusedCallCount: Int {
        Int(cpjsua_admission_refused())
    }

    /// Installs the admission module (once per pjsua instance) and its policy.
    func installAdmission(_ policy: AdmissionControl) throws(PJSUAError) {
        try check(cpjsua_admission_install(), "cannot install admission control")
        applyAdmission(policy, maxCalls: try currentRun().settings.maxCalls)
    }

    private func applyAdmission(_ policy: AdmissionControl, maxCalls: Int) {
        var c = cpjsua_admission_policy(
            max_calls: Int32(policy.maxCallsInProgress ?? maxCalls),
            max_rate: policy.maxNewCallsPerSecond ?? 0,
            burst: policy.burst ?? 0,
            retry_after_seconds: Int32(policy.retryAfter.wholeSeconds))
        cpjsua_admission_set(&c)
    }
}
