# jibod: build, cross-compile, test and run the robot runtime.
# `make run` starts the robot on the simulated board; `make test` runs
# everything CI runs. Both install what they need first.

GO        ?= go
VERSION   ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
# nethttpomithttp2 leaves Go's bundled HTTP/2 client out (about 330 KB):
# the hub link is a websocket over HTTP/1.1 and skills' fetches work the
# same over HTTP/1.1 (docs/size.md).
TAGS      := nethttpomithttp2
# The packages in scripts/cold-packages are built without inlining, which
# only grows code that is off the robot's hot paths (docs/size.md).
COLD_GCFLAGS := $(foreach p,$(shell grep -v '^\#' scripts/cold-packages),-gcflags=$(p)=-l)
GOFLAGS_B := -trimpath -tags '$(TAGS)' -ldflags '$(LDFLAGS)' $(COLD_GCFLAGS)
# The most the pure static ARM jibod may weigh, in bytes (docs/size.md).
SIZE_LIMIT := 15000000
PKG       := ./cmd/jibod

export PATH := /usr/local/go/bin:$(PATH)

.PHONY: all build cross size cross-full run test vet unit smoke qemu-smoke qemu-full qemu-drivers bench fuzz deps clean wasm-skills test-sphinx audio-eval wake-eval wake-train wake-finetune wake-rules

all: build

deps:
	scripts/deps.sh

build:
	CGO_ENABLED=0 $(GO) build $(GOFLAGS_B) -o bin/jibod $(PKG)
	CGO_ENABLED=0 $(GO) build $(GOFLAGS_B) -o bin/jibohub ./cmd/jibohub

# Pure-Go static builds for the robot's ARM boards.
cross:
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) build $(GOFLAGS_B) -o bin/linux-arm64/jibod $(PKG)
	CGO_ENABLED=0 GOOS=linux GOARCH=arm GOARM=7 $(GO) build $(GOFLAGS_B) -o bin/linux-armv7/jibod $(PKG)
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) build $(GOFLAGS_B) -o bin/linux-arm64/jibohub ./cmd/jibohub
	scripts/sizecheck.sh $(SIZE_LIMIT) bin/linux-arm64/jibod bin/linux-armv7/jibod

# Where the arm64 jibod's bytes go, per package (docs/size.md);
# e.g. `make size SIZE_ARGS='armv7 -by module'`.
size:
	JIBOD_TAGS='$(TAGS)' scripts/binsize.sh $(SIZE_ARGS)

# Full static ARM builds with portaudio and pocketsphinx linked in (cgo):
# bin/linux-arm64-full/jibod, bin/linux-armv7-full/jibod. The first run
# builds the sysroots (scripts/sysroot.sh; cached in ~/.cache/jibod-sysroot).
cross-full:
	VERSION=$(VERSION) scripts/cross-full.sh

# The robot's web page is served on WEB (docs/web.md); WEB=off for none.
WEB ?= 127.0.0.1:5426
run: build
	scripts/deps.sh --run
	bin/jibod run --board sim --input console --web $(WEB)

# staticcheck (pinned) finds what vet does not: dead code, swallowed
# errors, loops that never loop. The sphinx build's files too.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
# The Wasm skill SDK is a module of its own (sdk/wasmskill/go.mod), which
# ./... does not reach: it is vetted and tested from its folder, for the
# host and for wasip1.
vet:
	$(GO) vet ./...
	CGO_ENABLED=0 GOOS=linux GOARCH=arm GOARM=7 $(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	$(GO) run $(STATICCHECK) -tags sphinx ./audio/... ./core/runtime/hearing/ ./cmd/...
	cd sdk/wasmskill && $(GO) vet ./... && GOOS=wasip1 GOARCH=wasm $(GO) vet ./...
	cd sdk/wasmskill && $(GO) run $(STATICCHECK) ./...

unit:
	$(GO) test -race -count=1 -timeout 30m ./...
	cd sdk/wasmskill && $(GO) test -race -count=1 ./...

# The binary end to end on the host: the README's stdin example.
smoke: build
	scripts/smoke.sh bin/jibod

qemu-smoke: cross
	scripts/qemu-smoke.sh

# The full ARM builds under qemu: selftest, device listing without a sound
# card, speech recognised from a WAV file, and issue 24's end-to-end
# checks (scripts/qemu-full.sh).
qemu-full: cross-full
	scripts/qemu-full.sh

# The hardware drivers' bus-trace tests and the motion package's tests,
# built for 32-bit ARM (armv7, where periph's own servo maths overflowed)
# and run under qemu-user. About 15 s.
# core/diag: the shell's termios and pseudo-terminal tests (the termios
# layout differs per architecture). audio/wake: the wake word network's
# scores against the training script's, in 32-bit ARM's floating point.
DRIVER_PKGS := device/pca9685 device/apa102 device/gpio device/ledring motion core/diag audio/wake

qemu-drivers:
	@mkdir -p bin/armtest
	@set -e; for p in $(DRIVER_PKGS); do \
		t=bin/armtest/$$(echo $$p | tr / -).test; \
		CGO_ENABLED=0 GOOS=linux GOARCH=arm GOARM=7 $(GO) test -c -o $$t ./$$p; \
		echo "qemu-arm: $$p"; (cd $$p && timeout -k 20 600 qemu-arm-static $(CURDIR)/$$t -test.count=1 -test.timeout=5m); \
	done


# The example WebAssembly skills as installable packages, e.g.
# bin/wasm-skills/memo/{manifest.json,locale/,skill.wasm}:
# `jibod skills install bin/wasm-skills/memo`. Built with this Go for
# wasip1 as WASI reactors (docs/wasm-abi.md); a few seconds each.
WASM_SKILLS := memo

wasm-skills:
	@set -e; for s in $(WASM_SKILLS); do \
		d=bin/wasm-skills/$$s; rm -rf $$d; mkdir -p $$d; \
		cp -R examples/wasm-skills/$$s/manifest.json examples/wasm-skills/$$s/locale $$d/; \
		(cd examples/wasm-skills/$$s && GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 \
			$(GO) build -buildmode=c-shared -trimpath -ldflags '-s -w' -o $(CURDIR)/$$d/skill.wasm .); \
		echo "wasm skill package: $$d"; \
	done

# Speech recognition (cgo, -tags sphinx, host build, dynamically linked):
# the pocketsphinx binding's tests on espeak-ng speech and the spoken
# end-to-end tests through jibod run --audio file:… ("hey jibo, what time
# is it" answered, also 10 dB over two other talkers; "hey jibo" and a
# sentence no skill knows asked about again; out-of-grammar requests and
# everyday sentences that must give no command), and
# jibod's sphinx wiring: settings, the loop's names in the grammars, a
# phonetic name heard aloud.
# scripts/deps.sh installs pocketsphinx, espeak-ng and sox.
test-sphinx:
	scripts/pocketsphinx-version.sh
	$(GO) vet -tags sphinx ./audio/sphinx/... ./core/runtime/hearing/ ./cmd/jibod/
	$(GO) test -tags sphinx -race -count=1 -timeout 30m ./audio/sphinx/... ./core/runtime/hearing/
	$(GO) test -tags sphinx -race -count=1 -timeout 30m -run 'TheLoopsNames|ReferentNames|ALoopChange|PhoneticName' ./cmd/jibod/

# The hearing figures of the README: the tuning set and the held-out set
# (generated once, about a minute each), heard through the sphinx build
# with Debian's model; then each set with the model adapted to an
# enrollment of its own voices (each voice reads the 100 sentences of
# `jibod audio prompts`, less the set's own sentences, as `jibod audio
# enroll` records people: the robot adapted to its people), and the
# held-out set with the model adapted to the tuning set's recordings
# (other voices); last the hard tuning set (voices of neither set, more
# noise), with Debian's model and with its voices enrolled, where a
# change can still show. Models are adapted afresh every run (about 20 s
# each).
audio-eval:
	scripts/pocketsphinx-version.sh
	$(GO) build -tags sphinx -o bin/jibod-sphinx ./cmd/jibod
	test -f bin/audio-testset/manifest.jsonl || scripts/gen-audio-testset.sh bin/audio-testset
	test -f bin/audio-testset-heldout/manifest.jsonl || scripts/gen-audio-testset.sh --heldout bin/audio-testset-heldout
	test -f bin/audio-testset-hard/manifest.jsonl || scripts/gen-audio-testset.sh --hard bin/audio-testset-hard
	test -f bin/audio-testset-wake/manifest.jsonl || scripts/gen-audio-testset.sh --wake bin/audio-testset-wake
	@# The enrollment follows the skills: new prompts mean new recordings.
	bin/jibod-sphinx audio prompts >bin/audio-enroll-prompts.new
	cmp -s bin/audio-enroll-prompts.new bin/audio-enroll-prompts.txt || { \
		mv bin/audio-enroll-prompts.new bin/audio-enroll-prompts.txt; rm -rf bin/audio-enroll-tuning bin/audio-enroll-heldout bin/audio-enroll-hard; }
	rm -f bin/audio-enroll-prompts.new
	test -f bin/audio-enroll-tuning/manifest.jsonl || scripts/gen-audio-testset.sh --enroll bin/audio-enroll-prompts.txt bin/audio-enroll-tuning
	test -f bin/audio-enroll-heldout/manifest.jsonl || scripts/gen-audio-testset.sh --enroll-heldout bin/audio-enroll-prompts.txt bin/audio-enroll-heldout
	test -f bin/audio-enroll-hard/manifest.jsonl || scripts/gen-audio-testset.sh --enroll-hard bin/audio-enroll-prompts.txt bin/audio-enroll-hard
	@echo "== tuning set, Debian's model"
	bin/jibod-sphinx audio eval --dir bin/audio-testset --quiet
	@echo "== held-out set, Debian's model"
	bin/jibod-sphinx audio eval --dir bin/audio-testset-heldout --quiet
	@echo "== tuning set, model adapted to its voices' enrollment (bin/model-tuning-enrolled)"
	rm -rf bin/model-tuning-enrolled && bin/jibod-sphinx audio adapt --dir bin/audio-enroll-tuning --out bin/model-tuning-enrolled
	JIBOD_SPHINX_MODEL=bin/model-tuning-enrolled bin/jibod-sphinx audio eval --dir bin/audio-testset --quiet
	@echo "== held-out set, model adapted to its voices' enrollment (bin/model-heldout-enrolled)"
	rm -rf bin/model-heldout-enrolled && bin/jibod-sphinx audio adapt --dir bin/audio-enroll-heldout --out bin/model-heldout-enrolled
	JIBOD_SPHINX_MODEL=bin/model-heldout-enrolled bin/jibod-sphinx audio eval --dir bin/audio-testset-heldout --quiet
	@echo "== held-out set, model adapted to the tuning set's recordings, other voices (bin/model-adapted)"
	rm -rf bin/model-adapted && bin/jibod-sphinx audio adapt --dir bin/audio-testset --out bin/model-adapted
	JIBOD_SPHINX_MODEL=bin/model-adapted bin/jibod-sphinx audio eval --dir bin/audio-testset-heldout --quiet
	@echo "== hard tuning set, Debian's model"
	bin/jibod-sphinx audio eval --dir bin/audio-testset-hard --quiet
	@echo "== hard tuning set, model adapted to its voices' enrollment (bin/model-hard-enrolled)"
	rm -rf bin/model-hard-enrolled && bin/jibod-sphinx audio adapt --dir bin/audio-enroll-hard --out bin/model-hard-enrolled
	JIBOD_SPHINX_MODEL=bin/model-hard-enrolled bin/jibod-sphinx audio eval --dir bin/audio-testset-hard --quiet
	@echo "== wake word set, Debian's model (the commands after the wake phrase)"
	bin/jibod-sphinx audio eval --dir bin/audio-testset-wake --quiet

# The wake word detector alone, in the pure build (no speech recognition),
# on its own set (scripts/gen-audio-testset.sh --wake, generated once, a
# few minutes): wake hits clean, in pink noise, babble, music, a room and
# far away, decoys, and false wakes per hour of conversation
# (docs/hearing.md). Errors only: in the files with babble or music to
# their last sample the energy detector is mid-utterance when the file
# ends, and the listener's "utterance dropped" warning for each is
# expected here, where nothing is recognised.
wake-eval: build
	test -f bin/audio-testset-wake/manifest.jsonl || scripts/gen-audio-testset.sh --wake bin/audio-testset-wake
	bin/jibod audio eval --dir bin/audio-testset-wake --wake-only --quiet --log-level error

# The wake word's decision rules measured on a training-side set of
# espeak-ng streams (training voices only; quiet, babble and brown noise
# at 10 and 5 dB; scripts/wake/loudset.py, built in bin/wake-loud once):
# where missed phrases peak, what each rule gives, and the rules no worse
# than the mean of 3 at 0.90 on decoys and false wakes ranked by 5 dB
# babble (WAKE_RULE, the simplest of those tied at the top). Never the
# wake set.
wake-rules:
	scripts/deps.sh --train
	nice -n 10 /usr/bin/python3 scripts/wake/loudset.py --rules

# Retrains the wake word network from espeak-ng speech as the committed
# model (audio/wake/model.bin) was made, in three stages and a rule:
# train.py from nothing (about two hours on the 2-core VM) writes the base
# weights, finetune.py's default recipe tunes them for far field and loud
# babble, and finetune.py --loud (WAKE_LOUD_FLAGS) tunes those for loud
# babble and steady noise. The stages choose a threshold for the mean of
# 3 steps; the last step (loudset.py --write, WAKE_RULE) replaces that
# rule with the held one make wake-rules ranks at the top, and the delay from
# the phrase's end to its decision that keeps the command's cut where the
# mean's put it. Each stage has its own work folder, its caches named by
# what made them. Never part of CI: the model is committed.
WAKE_LOUD_FLAGS := --loud --clips 6000 --decoy-clips 2000 --noise-clips 2000
WAKE_RULE := --hold 5 --threshold 0.78 --end-lag-ms 68
wake-train:
	scripts/deps.sh --train
	mkdir -p bin/wake
	nice -n 10 /usr/bin/python3 scripts/wake/train.py --work bin/wake --out bin/wake/base.bin --fixture bin/wake/base-parity.json
	nice -n 10 /usr/bin/python3 scripts/wake/finetune.py --base bin/wake/base.bin --work bin/wake-ft1 --out bin/wake/ft1.bin --fixture bin/wake/ft1-parity.json
	nice -n 10 /usr/bin/python3 scripts/wake/finetune.py $(WAKE_LOUD_FLAGS) --base bin/wake/ft1.bin --work bin/wake-ft2 --out bin/wake/ft2.bin
	nice -n 10 /usr/bin/python3 scripts/wake/loudset.py --model bin/wake/ft2.bin $(WAKE_RULE) --write audio/wake/model.bin

# The last stage alone (scripts/wake/finetune.py; under an hour, longer
# on a loaded machine) and the rule (WAKE_RULE, as in wake-train): from
# WAKE_BASE, else from the weights it started from as committed at
# WAKE_BASE_COMMIT (the default recipe's on train.py's weights of
# bb2ff2a), with its recipe (WAKE_FINETUNE_FLAGS).
WAKE_BASE ?= bin/wake/ft1.bin
WAKE_BASE_COMMIT := 629e011
WAKE_FINETUNE_FLAGS ?= $(WAKE_LOUD_FLAGS)
wake-finetune:
	scripts/deps.sh --train
	mkdir -p bin/wake
	test -f $(WAKE_BASE) || git show $(WAKE_BASE_COMMIT):audio/wake/model.bin >$(WAKE_BASE)
	nice -n 10 /usr/bin/python3 scripts/wake/finetune.py --base $(WAKE_BASE) --work bin/wake-ft2 --out bin/wake/ft2.bin $(WAKE_FINETUNE_FLAGS)
	nice -n 10 /usr/bin/python3 scripts/wake/loudset.py --model bin/wake/ft2.bin $(WAKE_RULE) --write audio/wake/model.bin

test: deps vet wasm-skills unit smoke fuzz qemu-smoke qemu-drivers test-sphinx qemu-full

# Under make test the web page's browser tests fail rather than skip when
# no browser is installed (deps installs Debian's chromium).
test: export JIBOD_REQUIRE_BROWSER := 1

# Short fuzz smoke of the hub link's frame and catalog decoders
# (core/hub/wire); FUZZTIME per target. A count, not a duration: Go
# before 1.27 can report its own -fuzztime deadline as a failure when a
# loaded machine leaves a worker mid-call at the deadline (golang/go#75804),
# and a count has no deadline.
FUZZTIME ?= 50000x
HUB_FUZZ := FuzzDecodeRequest FuzzDecodeResponse FuzzDecodeCatalog

fuzz:
	@set -e; for f in $(HUB_FUZZ); do \
		$(GO) test ./core/hub/wire/ -run '^$$' -fuzz "^$$f\$$" -fuzztime $(FUZZTIME); \
	done

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf bin
