import CPJSUASupport
import Foundation
import PJSIP

/// The most recent TLS certificate refusal, so that the registration that failed because of it
/// can name the reason.
///
/// pjsip's TLS transport reports the refusal (`on_transport_state`, DISCONNECTED with
/// `PJSIP_TLS_ECERTVERIF`) on the worker thread before it fails the messages that waited for the
/// connection, so the refusal is recorded before the registration callback reads it. The
/// registration callback does not say which connection it waited for; with several refusals
/// at the same moment, the latest one is reported.
/// Kept in the run (``EngineRun/State/certificateRefusal``).
enum CertificateRefusals {
    /// pjsip fails a transaction whose TLS connection was refused with 503 and, as its reason,
    /// the text of `PJSIP_TLS_ECERTVERIF` (sip_transaction.c: `tsx_set_status_code` with
    /// `pj_strerror(transport_err)`); a registration then reports `PJ_SUCCESS` as its status.
    /// Read on the pjsua thread that records the first refusal: `pj_strerror` knows PJSIP's
    /// texts only once pjsua is initialised, and is not called from foreign threads
    /// (``EngineRun/State/certificateFailureReason``).

    /// Called on a pjsua worker thread.
    static func record(_ error: PJSUAError, in run: EngineRun) {
        let reason = pjErrorText(PJSUAError.certificateVerificationStatus)
        run.withState { state in
            state.certificateRefusal = (error, .now)
            state.certificateFailureReason = reason
        }
    }

    /// The refusal behind a transaction that ended with this status, if a refused certificate
    /// is why: the most recent one.
    static func error(status: pj_status_t, code: PJSUA.SIPResponseCode, reason: String, in run: EngineRun?) -> PJSUAError? {
        run?.withState { state -> PJSUAError? in
            guard let latest = state.certificateRefusal,
                  status == PJSUAError.certificateVerificationStatus || (code == .serviceUnavailable && reason == state.certificateFailureReason)
            else { return nil }
            return latest.error
        } ?? nil
    }
}

/// `on_transport_state`: publishes TLS connections coming up and going down, with what
/// verification found.
func onTransportState(_ transport: UnsafeMutablePointer<pjsip_transport>?, _ state: pjsip_transport_state,
                      _ info: UnsafePointer<pjsip_transport_state_info>?) {
    guard let transport, let info, state == PJSIP_TP_STATE_CONNECTED || state == PJSIP_TP_STATE_DISCONNECTED,
          let run = EngineRun.current else { return }
    let kind = UInt32(transport.pointee.key.type) & ~PJSIP_TRANSPORT_IPV6.rawValue
    guard kind == PJSIP_TRANSPORT_TLS.rawValue else { return }
    let remote = "\(String(pj: transport.pointee.remote_name.host)):\(transport.pointee.remote_name.port)"
    var problems = PJSUA.CertificateProblems()
    var commonName: String?
    if let tls = info.pointee.ext_info?.assumingMemoryBound(to: pjsip_tls_state_info.self),
       let ssl = tls.pointee.ssl_sock_info {
        problems = PJSUA.CertificateProblems(rawValue: ssl.pointee.verify_status)
        if let certificate = ssl.pointee.remote_cert_info, certificate.pointee.version != 0 {
            let name = String(pj: certificate.pointee.subject.cn)
            commonName = name.isEmpty ? nil : name
        }
    }
    let status = info.pointee.status
    var error: PJSUAError?
    if status == PJSUAError.certificateVerificationStatus {
        let refusal = problems.error(remote: remote)
        CertificateRefusals.record(refusal, in: run)
        error = refusal
    } else if status != pjSuccess && status != cpjsua_status_eeof {
        // PJ_EEOF is the peer closing the connection: an ordinary end, not an error.
        error = PJSUAError(status: status, operation: "TLS connection with \(remote)")
    }
    let connection = PJSUA.TLSConnection(
        remote: remote, isOutgoing: transport.pointee.dir == PJSIP_TP_DIR_OUTGOING, isConnected: state == PJSIP_TP_STATE_CONNECTED,
        problems: problems, peerCommonName: commonName, error: error)
    run.publish(.tlsConnection(connection))
}
