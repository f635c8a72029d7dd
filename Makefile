# The commands people type. Each installs what it needs first (idempotent: a second run skips it).
SWIFT ?= swift
SWIFT_FLAGS ?=

.PHONY: all deps peers build demo test bench fuzz clean

all: build

deps:
	@bash scripts/install-pjproject.sh

peers:
	@bash scripts/install-peers.sh

build: deps
	$(SWIFT) build $(SWIFT_FLAGS)

## make demo: a real SIP call over loopback, no server needed.
demo: deps
	$(SWIFT) build $(SWIFT_FLAGS) --product softphone
	$$($(SWIFT) build $(SWIFT_FLAGS) --show-bin-path)/softphone demo

## make test: the whole test suite against real PJSIP and real peers (sipp, kamailio).
test: deps peers
	$(SWIFT) build $(SWIFT_FLAGS)
	$(SWIFT) build $(SWIFT_FLAGS) --build-tests
	$(SWIFT) test $(SWIFT_FLAGS) --skip-build

clean:
	rm -rf .build
