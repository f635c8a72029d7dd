# The commands people type. Each installs what it needs first (idempotent: a second run skips it).
SWIFT ?= swift
SWIFT_FLAGS ?=

.PHONY: all deps deps-ios-profile deps-asan deps-unpatched test-ios-profile peers build demo demo-video test test-stress asan asan-engine tsan manifest-check apple-check api-check api-baseline docs bench bench-check fuzz fuzz-smoke clean

all: build

# After each install, the build directories made against that prefix are dropped when they were
# built against another PJSIP (KL-55: Clang keeps a system module's old struct layouts).
TRIPLE := $(shell uname -m)-unknown-linux-gnu
deps:
	@bash scripts/install-pjproject.sh
	@bash scripts/fresh-scratch.sh /usr/local .build/$(TRIPLE) .build/tsan

peers:
	@bash scripts/install-peers.sh

## make deps-ios-profile: PJSIP with the iOS binary's feature set (swift-pjsip 0.2.1: 8 calls,
## 4 players, 31 transactions, select ioqueue with 64 handles, PCMU/PCMA/G.722/G.729, no Opus;
## scripts/pjproject-config_site-ios.h) in its own prefix, beside the Linux build (idempotent).
IOS_PREFIX ?= /opt/pjproject-ios
deps-ios-profile:
	@PJPROJECT_PROFILE=ios PJPROJECT_PREFIX=$(IOS_PREFIX) bash scripts/install-pjproject.sh
	@bash scripts/fresh-scratch.sh $(IOS_PREFIX) .build/ios-profile

## make deps-asan: PJSIP instrumented with AddressSanitizer (and UBSan's bounds and null checks),
## built by the Swift toolchain's clang from the same tree, patches and configuration as /usr/local's,
## in its own prefix (idempotent). The ASan passes link it, so a memory error inside PJSIP (an
## advisory's overflow, KL-44's kind of corruption) is a report that fails the suite.
ASAN_PREFIX ?= /opt/pjproject-asan
deps-asan:
	@PJPROJECT_PROFILE=asan PJPROJECT_PREFIX=$(ASAN_PREFIX) bash scripts/install-pjproject.sh
	@bash scripts/fresh-scratch.sh $(ASAN_PREFIX) .build/asan

## make deps-unpatched: the same tree and configuration without any of our patches
## (PJPROJECT_PATCHES=none), in its own prefix: the state of a PJSIP an app cannot patch (the iOS
## binary). Security/InputScreenTests runs its pjsua app and the plain softphone on it.
UNPATCHED_PREFIX ?= /opt/pjproject-unpatched
deps-unpatched:
	@PJPROJECT_PATCHES=none PJPROJECT_PREFIX=$(UNPATCHED_PREFIX) bash scripts/install-pjproject.sh

build: deps
	$(SWIFT) build $(SWIFT_FLAGS)

## make demo: a real SIP call over loopback, no server needed.
demo: deps
	$(SWIFT) build $(SWIFT_FLAGS) --product softphone
	$$($(SWIFT) build $(SWIFT_FLAGS) --show-bin-path)/softphone demo

## make demo-video: the same call with video; pjsua shows the far end's colour bars in its own
## (SDL) window on $DISPLAY for DEMO_SECONDS (off-screen without a display). The test runs it
## under Xvfb and checks the bars in a screenshot (Tests/SwiftPJSUATests/CLI/DemoVideoTests.swift).
DEMO_SECONDS ?= 10
demo-video: deps
	$(SWIFT) build $(SWIFT_FLAGS) --product softphone
	$$($(SWIFT) build $(SWIFT_FLAGS) --show-bin-path)/softphone demo --video --seconds $(DEMO_SECONDS)

## make test: the whole test suite against real PJSIP and real peers (sipp, kamailio). Every test
## runs once: the engine suites (SwiftPJSUATests but UNSANITIZED_SUITES) under AddressSanitizer in
## asan-engine, everything else in the main pass (MAIN_PASS_SKIP, the exact complement); each pass
## runs its OWN_PROCESS_SUITES after the rest, in a test process of their own. The
## engine suites are one serial chain of engine turns (pjsua is one per process: about 440 s in the
## main pass, 530 s under ASan); running them in both passes put make test over its 30 minutes.
## `swift test` (after `make deps peers`) runs the whole suite unsanitized, as make test did before.
## Every `swift test` in make test is bounded (BOUNDED, about 2.5x its time on a busy machine): a
## test process that dies in a way `swift test` does not notice (KL-42: an abort whose backtrace
## tripped AddressSanitizer) otherwise left make test waiting until CI's own limit.
BOUNDED = bash scripts/bounded.sh
# deps-ios-profile too: LibraryCheckTests runs a softphone against the other build's libraries,
# so both builds must exist before the first pass (not only before test-ios-profile).
test: deps deps-ios-profile deps-asan deps-unpatched peers
	$(SWIFT) build $(SWIFT_FLAGS)
	$(SWIFT) build $(SWIFT_FLAGS) --build-tests
	$(SWIFT) test list $(SWIFT_FLAGS) --skip-build | python3 scripts/check-test-split.py \
		main '' '$(MAIN_PASS_SKIP)' main-own '$(OWN_PROCESS_FILTER)' '$(SANITIZED_TESTS)' \
		asan-engine '$(ASAN_TARGET)' '$(ASAN_ENGINE_SKIP)' asan-own '$(OWN_PROCESS_FILTER)' '$(UNSANITIZED_SUITES)'
	$(BOUNDED) 600 $(SWIFT) test $(SWIFT_FLAGS) --skip-build --skip '$(MAIN_PASS_SKIP)'
	$(BOUNDED) 300 $(SWIFT) test $(SWIFT_FLAGS) --skip-build --filter '$(OWN_PROCESS_FILTER)' --skip '$(SANITIZED_TESTS)'
	$(MAKE) api-check
	$(MAKE) docs
	$(MAKE) bench-check
	$(MAKE) asan-engine
	$(MAKE) manifest-check
	$(MAKE) apple-check
	$(MAKE) test-ios-profile
	$(MAKE) fuzz-smoke

## make test-ios-profile (part of make test): the engine and the Kit built against the iOS
## profile (deps-ios-profile) in their own scratch path, and the suites that read the build's
## limits, codecs and defaults run on it. The binaries find the profile's libraries through an
## rpath (DT_RPATH, so that pjproject's libraries find each other there too), never through
## LD_LIBRARY_PATH, which would also reach the child processes built against /usr/local (the pjsua
## app); softphone children are the profile's own (SWIFT_PJSUA_SOFTPHONE). The suites
## (IOS_PROFILE_SUITES: 186 tests in 32 suites, 73-80 s on a busy 2-core machine, plus a first build of
## ~4-9 minutes; the whole engine suite would not fit make test's 30 minutes) are those whose
## premise the profile changes: limits, codecs and media defaults read from the build
## (BuildProfileTests), players (4), self calls, DTMF between two engines and with baresip and the
## pjsua app (telephone-event 101, a PCMU call where Linux talks Opus), transaction matching (31
## transactions, the select ioqueue), audio-only offers, the codec preference and offers
## (CodecTests: G.722 first without Opus), hostile input sized by the build's PJSIP_MAX_PKT_LEN
## (16000) and ioqueue handles (64), a send on a closed socket (KL-42, the profile's ioqueue), a
## bound listener reopened on its address (KL-43; not the restart flood, which outruns the
## profile's limits: its restarts ran out of the 64 ioqueue keys, a closed socket's key waiting
## 500 ms, and paced, its OPTIONS left no transaction of 31 for a last one), and every Kit suite
## (against a real engine).
IOS_SCRATCH = --scratch-path .build/ios-profile
IOS_ENV = PKG_CONFIG_PATH=$(IOS_PREFIX)/lib/pkgconfig SWIFT_PJSUA_SOFTPHONE=$(CURDIR)/.build/ios-profile/debug/softphone SWIFT_PJSUA_PROFILE=ios
IOS_LINK = -Xlinker -rpath -Xlinker $(IOS_PREFIX)/lib -Xlinker --disable-new-dtags
IOS_PROFILE_SUITES ?= ^SwiftPJSUATests\.(BuildProfileTests|SharedPlayerTests|SelfCallTests|DTMFTests|DTMFInteropTests|TransactionMatchingTests|AudioOnlyCallTests|CodecTests|HostileInputTests|ClosedSocketSendTests)/|^SwiftPJSUATests\.ListenerRestartTests/aListenerBound|^SwiftPJSUAKitTests\.
test-ios-profile: deps-ios-profile
	$(IOS_ENV) $(SWIFT) build $(SWIFT_FLAGS) $(IOS_SCRATCH) $(IOS_LINK) --product softphone
	$(IOS_ENV) $(SWIFT) build $(SWIFT_FLAGS) $(IOS_SCRATCH) $(IOS_LINK) --build-tests
	@for binary in softphone swift-pjsuaPackageTests.xctest; do \
		ldd .build/ios-profile/debug/$$binary | grep -q '$(IOS_PREFIX)/lib/libpjsua.so' \
			|| { echo "test-ios-profile: $$binary does not load the profile's libpjsua" >&2; exit 1; }; \
	done
	$(IOS_ENV) $(BOUNDED) 600 $(SWIFT) test $(SWIFT_FLAGS) $(IOS_SCRATCH) $(IOS_LINK) --skip-build --disable-xctest --filter '$(IOS_PROFILE_SUITES)'

## make asan / make tsan: the whole suite under AddressSanitizer (with LeakSanitizer) or
## ThreadSanitizer, in their own build directories. Swift Testing only (--disable-xctest: the
## package has no XCTest tests, and the XCTest runner's own objects are reported as leaks).
## make test runs the engine's tests under ASan (asan-engine).
# lld: gold prints a page of "cannot export local symbol" warnings for the ASan runtime.
# The ASan builds link the instrumented PJSIP (deps-asan) through an rpath, as test-ios-profile
# links its profile: DT_RPATH, so that pjproject's libraries find each other there too. The
# sanitized softphone children load it as well; every other child (the pjsua app, sipp) keeps its own.
# `make asan-engine ASAN_PREFIX=/opt/pjproject-asan-unpatched` (a build with
# PJPROJECT_PATCHES=kl) runs the same tests on the unpatched library (docs/SECURITY.md).
ASAN_ENV = PKG_CONFIG_PATH=$(ASAN_PREFIX)/lib/pkgconfig
ASAN = --sanitize=address --scratch-path .build/asan -Xswiftc -use-ld=lld \
	-Xlinker -rpath -Xlinker $(ASAN_PREFIX)/lib -Xlinker --disable-new-dtags
ASAN_CHILDREN = SWIFT_PJSUA_SOFTPHONE=$(CURDIR)/.build/asan/debug/softphone SWIFT_PJSUA_CHILD_ASAN_OPTIONS=detect_leaks=0
TSAN = --sanitize=thread --scratch-path .build/tsan
## Their softphone children are the sanitized build's own softphone (SWIFT_PJSUA_SOFTPHONE), so
## the CLI process is checked too (ASan's on the instrumented PJSIP; TSan's PJSIP is not instrumented); the other child
## processes (examples, echo-bot) are the plain debug build's. The ASan children run without
## LeakSanitizer (SWIFT_PJSUA_CHILD_ASAN_OPTIONS): a CLI process that exits leaves what is live at
## exit, which LSan reports (OpenSSL's per-thread random generators of the engine's
## threads; Swift's weak-reference side tables, whose pointer LSan does not recognise). The
## engine's own leaks are LSan's in the test process and the soak benchmark's.
asan: deps deps-ios-profile deps-asan peers
	$(SWIFT) build $(SWIFT_FLAGS)  # every product: the tests run softphone and the examples as child processes
	$(ASAN_ENV) $(SWIFT) build $(SWIFT_FLAGS) --build-tests $(ASAN)
	$(ASAN_ENV) $(ASAN_CHILDREN) $(SWIFT) test $(SWIFT_FLAGS) --skip-build --disable-xctest $(ASAN)

# The video suites run in `make test`'s main pass, not here: in-process video calls start SDL,
# whose dlopen'ed (and unloaded) backends leave allocations LeakSanitizer reports without symbols.
# LifecycleMemoryTests: RSS per start/shutdown cycle, which a sanitizer's quarantine and shadow
# memory hide (LifecycleStressTests, the same cycles, checks threads and descriptors under ASan).
# DispatcherTests: no engine in the test process (kamailio, sipp and two softphone children), and
# the heaviest load in the suite (200 calls at 40 a second); it runs in the main pass.
UNSANITIZED_SUITES = VideoTests|PjsuaAppVideoTests|DispatcherTests|LifecycleMemoryTests
ASAN_TARGET = SwiftPJSUATests
# OWN_PROCESS_SUITES read the whole test process's figures (threads, open descriptors, resident
# memory) before and after 200 engine cycles: each pass runs them after its other tests, in a
# test process of their own (the -own runs), because any test beside them moves the same figures
# (a child process's pipes, the threads that watch it, a video call's buffers). In the main pass
# they waited for the warm-up's count while the video suites' children came and went (stop 44's CI).
OWN_PROCESS_SUITES = LifecycleStressTests|LifecycleMemoryTests
OWN_PROCESS_FILTER = $(ASAN_TARGET)\.($(OWN_PROCESS_SUITES))/
ASAN_ENGINE_SKIP = $(UNSANITIZED_SUITES)|$(OWN_PROCESS_SUITES)
ASAN_ENGINE_FILTER = --filter $(ASAN_TARGET) --skip '$(ASAN_ENGINE_SKIP)'
# The tests asan-engine and asan-own run (ASAN_TARGET's, unless one of UNSANITIZED_SUITES); the
# main pass and main-own skip them. scripts/check-test-split.py checks on every make test that
# the four runs split the list exactly.
SANITIZED_TESTS = $(ASAN_TARGET)\.(?!.*($(UNSANITIZED_SUITES)))
MAIN_PASS_SKIP = $(SANITIZED_TESTS)|$(OWN_PROCESS_SUITES)
asan-engine: deps deps-ios-profile deps-asan deps-unpatched peers
	$(ASAN_ENV) $(SWIFT) build $(SWIFT_FLAGS) --build-tests $(ASAN)
	@for binary in softphone swift-pjsuaPackageTests.xctest; do \
		ldd .build/asan/debug/$$binary | grep -q '$(ASAN_PREFIX)/lib/libpjsua.so' \
			|| { echo "asan-engine: $$binary does not load the instrumented libpjsua ($(ASAN_PREFIX))" >&2; exit 1; }; \
	done
	$(ASAN_ENV) $(ASAN_CHILDREN) $(BOUNDED) 1500 $(SWIFT) test $(SWIFT_FLAGS) --skip-build --disable-xctest $(ASAN) $(ASAN_ENGINE_FILTER)
	$(ASAN_ENV) $(ASAN_CHILDREN) $(BOUNDED) 300 $(SWIFT) test $(SWIFT_FLAGS) --skip-build --disable-xctest $(ASAN) --filter '$(OWN_PROCESS_FILTER)' --skip '$(UNSANITIZED_SUITES)'

tsan: deps deps-ios-profile peers
	$(SWIFT) build $(SWIFT_FLAGS)  # every product: the tests run softphone and the examples as child processes
	$(SWIFT) build $(SWIFT_FLAGS) --build-tests $(TSAN)
	# One test at a time: a TSan softphone child is several times slower than a plain one, and in
	# parallel (2026-12-02, 274 tests) seven tests missed deadlines set for plain children.
	# Children exit without TSan's default 1 s sleep at exit (atexit_sleep_ms, there to catch
	# races with threads still running): the tests time how fast a child exits (a second Ctrl-C
	# must end it at once, within 1 s), and read 1.02 s of which 1 s was that sleep.
	SWIFT_PJSUA_SOFTPHONE=$(CURDIR)/.build/tsan/debug/softphone SWIFT_PJSUA_CHILD_TSAN_OPTIONS=atexit_sleep_ms=0 \
		$(SWIFT) test $(SWIFT_FLAGS) --skip-build --disable-xctest --no-parallel $(TSAN)

## make test-stress: the flake hunt (scripts/test-stress.sh). One pass of make test (PASS=main,
## main-own, asan, asan-own or ios, composed from the variables above), or the tests FILTER names
## (within PASS when given), RUNS times in a row (5) while stress-ng keeps one core busy (LOAD=0:
## without); then a table: each test that failed, in how many runs, and the first line of each
## cause. The child logs of a run with a failure are kept whole, in .build/test-stress/<date-time>/run-N.
test-stress: deps deps-ios-profile peers
	SWIFT='$(SWIFT)' SWIFT_FLAGS='$(SWIFT_FLAGS)' PASS='$(PASS)' FILTER='$(FILTER)' RUNS='$(RUNS)' LOAD='$(LOAD)' \
		MAIN_PASS_SKIP='$(MAIN_PASS_SKIP)' OWN_PROCESS_FILTER='$(OWN_PROCESS_FILTER)' SANITIZED_TESTS='$(SANITIZED_TESTS)' \
		ASAN='$(ASAN)' ASAN_TARGET='$(ASAN_TARGET)' ASAN_ENGINE_SKIP='$(ASAN_ENGINE_SKIP)' UNSANITIZED_SUITES='$(UNSANITIZED_SUITES)' \
		ASAN_CHILDREN='$(ASAN_CHILDREN)' \
		IOS_ENV='$(IOS_ENV)' IOS_SCRATCH='$(IOS_SCRATCH)' IOS_LINK='$(IOS_LINK)' IOS_PROFILE_SUITES='$(IOS_PROFILE_SUITES)' \
		bash scripts/test-stress.sh

## make api-check: the public API of SwiftPJSUA and SwiftPJSUAKit, as the build's symbol graphs
## give it (one sorted line per declaration and conformance, scripts/api-digest.py), against the
## checked-in baseline in api/; fails with the difference. The API is a file: a change of public
## spelling changes api/*.txt in the same commit (make api-baseline rewrites them), so every
## such change is a visible diff in review.
API_MODULES = SwiftPJSUA SwiftPJSUAKit SwiftPJSUAStreams
SYMBOL_GRAPHS = $$($(SWIFT) build --show-bin-path)/../symbolgraph
api-check: deps
	$(SWIFT) package dump-symbol-graph --skip-synthesized-members --emit-extension-block-symbols >/dev/null
	python3 scripts/api-digest.py $(SYMBOL_GRAPHS) --check api $(API_MODULES)

api-baseline: deps
	$(SWIFT) package dump-symbol-graph --skip-synthesized-members --emit-extension-block-symbols >/dev/null
	python3 scripts/api-digest.py $(SYMBOL_GRAPHS) --write api $(API_MODULES)

## make docs (part of make test): the DocC catalogs of SwiftPJSUA and SwiftPJSUAKit, built by the
## toolchain's docc from the build's symbol graphs with warnings as errors, so a broken ``Symbol``
## link, a link to an internal type or a missing article fails (scripts/build-docs.sh). Writes
## .build/docs only. With a current build: 17-24 s (the dump, which builds what changed and also
## dumps the test bundles once built, then ~5 s of docc); 44-50 s at load average 20.
docs: deps
	SWIFT=$(SWIFT) bash scripts/build-docs.sh

## make manifest-check: evaluate Package.swift's iOS branch here, as an Apple host would, and check it.
manifest-check:
	python3 scripts/check-manifest.py

## make apple-check: typecheck the iOS-only adapters and the CallKit article's sample on Linux,
## against stand-ins of Apple's declarations (Tests/AppleSDKStandIns).
apple-check: deps
	$(SWIFT) build $(SWIFT_FLAGS)
	SWIFT=$(SWIFT) bash scripts/check-apple-code.sh

## make fuzz: every libFuzzer target for 30 s each (FUZZ_SECONDS to change): the VoIP push payload
## parser, and PJSIP's SIP parser, endpoint, SDP negotiation, multipart, XML bodies and STUN on the
## instrumented PJSIP (Fuzz/PJSIP/, seeds in Fuzz/corpus/, findings in Fuzz/findings/).
FUZZ_SECONDS ?= 30
fuzz: deps-asan
	ASAN_PREFIX=$(ASAN_PREFIX) bash Fuzz/run.sh $(FUZZ_SECONDS)

# The smoke run fuzzes every target for a fixed number of inputs from the committed seeds with a
# fixed seed (FUZZ_RUNS=smoke, about 8 s a target on a quiet machine; 120 s is only the safety
# net): how far it gets does not depend on the machine's load, and runs differ only by libFuzzer's
# own scheduling (measured: coverage within 1% run to run). Exploring is make fuzz's (a new seed
# each run, its learned corpus kept): what it finds is patched and its reproducer becomes a seed
# (KL-53's are). A target with an open finding
# (Fuzz/findings/README.md) goes into FUZZ_REPLAY_ONLY, which replays its committed seeds once.
FUZZ_REPLAY_ONLY ?=
FUZZ_SMOKE_SEED ?= 20261206
FUZZ_SMOKE_TARGETS ?= push_payload sip_parser sip_endpoint sdp multipart xml_bodies stun rtp_payload
fuzz-smoke: deps-asan
	FUZZ_RUNS=smoke FUZZ_SEED=$(FUZZ_SMOKE_SEED) FUZZ_REPLAY_ONLY="$(FUZZ_REPLAY_ONLY)" ASAN_PREFIX=$(ASAN_PREFIX) bash Fuzz/run.sh 120 $(FUZZ_SMOKE_TARGETS)

## make bench: every benchmark, release build; each prints its figures and a JSON line.
BENCH = .build/release/pjsua-bench
bench: deps peers
	$(SWIFT) build -c release --product softphone
	$(SWIFT) build -c release --product pjsua-bench
	$(SWIFT) build -c release --product stream-echo-agent  # pjsua-bench stream's WebSocket agent
	$(BENCH) hop
	$(BENCH) events
	$(BENCH) setup --calls 200
	$(BENCH) idle --seconds 10
	$(BENCH) soak --calls 1000
	$(BENCH) load --rate 20 --seconds 10 --hold-ms 1000 --repeat 3 --overload --overload-seconds 10 --pin
	$(BENCH) load --rate 20 --seconds 10 --hold-ms 1000 --repeat 3 --overload --overload-seconds 10 --pin --clock-rate 8000
	$(BENCH) frames --calls 50 --seconds 10 --repeat 3 --pin
	$(BENCH) stream --calls 20 --seconds 8 --repeat 3 --pin
	$(BENCH) media --calls 100 --opus-calls 10 --seconds 8 --pin
	$(BENCH) video --seconds 10 --repeat 3 --pin

## make bench-check (part of make test): the cheap same-run ratios at small sizes, each against a
## threshold well above its run-to-run noise, so that a gross performance regression fails the
## build: setup (self-call cycle, Swift engine / the same loop in C), hop (engine / DispatchQueue),
## load (server CPU of the same sipp calls at 8 kHz, softphone / the pjsua app), frames (CPU per
## call-second, Swift frames / C player), stream (CPU per call-second, a media stream to the C
## echo agent / Swift frames). The thresholds, and the noise they were set from, live
## with the figures in Benchmarks/pjsua-bench/CheckBenchmark.swift (and the DocC article
## Performance.md). Release builds of softphone, pjsua-bench and stream-echo-agent, then about a minute and a half of runs.
bench-check: deps peers
	$(SWIFT) build -c release --product softphone
	$(SWIFT) build -c release --product pjsua-bench
	$(SWIFT) build -c release --product stream-echo-agent
	$(BENCH) check

clean:
	rm -rf .build
