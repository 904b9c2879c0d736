# jibod: build, cross-compile, test and run the robot runtime.
# `make run` starts the robot on the simulated board; `make test` runs
# everything CI runs. Both install what they need first.

GO        ?= go
VERSION   ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
GOFLAGS_B := -trimpath -ldflags '$(LDFLAGS)'
PKG       := ./cmd/jibod

export PATH := /usr/local/go/bin:$(PATH)

.PHONY: all build cross run test vet unit smoke qemu-smoke qemu-drivers bench deps clean

all: build

deps:
	scripts/deps.sh

build:
	CGO_ENABLED=0 $(GO) build $(GOFLAGS_B) -o bin/jibod $(PKG)

# Pure-Go static builds for the robot's ARM boards.
cross:
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) build $(GOFLAGS_B) -o bin/linux-arm64/jibod $(PKG)
	CGO_ENABLED=0 GOOS=linux GOARCH=arm GOARM=7 $(GO) build $(GOFLAGS_B) -o bin/linux-armv7/jibod $(PKG)

run: build
	scripts/deps.sh --run
	bin/jibod run --board sim --input console

vet:
	$(GO) vet ./...
	CGO_ENABLED=0 GOOS=linux GOARCH=arm GOARM=7 $(GO) vet ./...

unit:
	$(GO) test -race -count=1 ./...

# The binary end to end on the host: the README's stdin example.
smoke: build
	scripts/smoke.sh bin/jibod

qemu-smoke: cross
	scripts/qemu-smoke.sh

# The hardware drivers' bus-trace tests and the motion package's tests,
# built for 32-bit ARM (armv7, where periph's own servo maths overflowed)
# and run under qemu-user. About 15 s.
DRIVER_PKGS := device/pca9685 device/apa102 device/gpio device/ledring motion

qemu-drivers:
	@mkdir -p bin/armtest
	@set -e; for p in $(DRIVER_PKGS); do \
		t=bin/armtest/$$(echo $$p | tr / -).test; \
		CGO_ENABLED=0 GOOS=linux GOARCH=arm GOARM=7 $(GO) test -c -o $$t ./$$p; \
		echo "qemu-arm: $$p"; qemu-arm-static $$t -test.count=1; \
	done

test: deps vet unit smoke qemu-smoke qemu-drivers

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf bin
