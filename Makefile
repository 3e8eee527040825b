# apigen — see README.md. Every target runs from a fresh clone with only Go (and, for the
# end-to-end tests, /usr/bin/kubectl) installed.

GO        ?= go
# No build tags: every target, a plain go build or go test, the Dockerfile, editors and what
# apigen init writes compile the same packages the same way, so nothing is compiled twice.
DATA_DIR  ?= apiserver-data
TEST_FLAGS ?= -timeout 40m
# TEST_PKGS are the packages make test and make vet check, e.g. make test TEST_PKGS=./generators/...
TEST_PKGS ?= ./...
BIN       := bin

.PHONY: run build generate verify test test-short bench bench-anchor bench-gen bench-sitting vet fuzz

## run: build and start the example API server on an embedded etcd (data in ./$(DATA_DIR));
## ARGS are more server flags, e.g. make run ARGS='--secure-port 0 --log-level debug'
ARGS ?=
run:
	$(GO) build -o $(BIN)/example-apiserver ./example-api/cmd/example-apiserver
	./$(BIN)/example-apiserver --data-dir $(DATA_DIR) $(ARGS)

## build: build apigen, the example API server and its controller into ./bin
build:
	$(GO) build -o $(BIN)/apigen ./cmd/apigen
	$(GO) build -o $(BIN)/example-apiserver ./example-api/cmd/example-apiserver
	$(GO) build -o $(BIN)/database-controller ./example-api/cmd/database-controller

## generate: regenerate every zz_generated file (and the typed clients below pkg/generated) of
## the example API and the runtime's own APIs,
## and the OpenAPI definitions and JSON codecs of apimachinery's types they share
## (runtime/openapi/apimachinery, runtime/jsoncodec/apimachinery)
generate:
	$(GO) test ./generators/openapi -run TestSharedDefinitions -count=1 -update
	$(GO) test ./generators/jsoncodec -run TestSharedCodecs -count=1 -update
	$(GO) generate ./example-api/... ./runtime/apis/...

## verify: exit 1 with a diff when a generated file is stale or missing
verify:
	$(GO) test ./generators/openapi -run TestSharedDefinitions -count=1
	$(GO) test ./generators/jsoncodec -run TestSharedCodecs -count=1
	$(GO) tool apigen verify ./example-api/... ./runtime/apis/...

## vet: go vet every package (of TEST_PKGS)
vet:
	$(GO) vet $(TEST_PKGS)

## test: vet and verify (its shared-definitions halves are tests of the pass below, which
## fail when those files are stale); then every package's tests (unit, golden and end-to-end: real etcd,
## real HTTP, /usr/bin/kubectl) but those of RACE_PKGS (the runtime's packages with concurrency
## of their own), then those under the race detector (their only run), then the fuzz targets
## (make fuzz, its output in $(FUZZ_LOG), summed up); each package's time printed as it ends
## (gotestsum, through the Go module proxy), then the ten slowest tests and each phase's time
## (go vet having run, go test's own vet pass is off). One run after another: on two cores
## each keeps the machine busy alone, and side by side they only slowed each other's timed
## tests.
GOTESTSUM := $(GO) run gotest.tools/gotestsum@v1.13.0
TEST_JSON ?= $(BIN)/test.json
RACE_JSON ?= $(BIN)/test-race.json
FUZZ_LOG  ?= $(BIN)/fuzz.log
RACE_PKGS := ./runtime/app/... ./runtime/storage/... ./runtime/endpoints/... ./runtime/garbagecollector/... \
             ./runtime/aggregator/... ./runtime/server/... ./runtime/admission/... ./runtime/audit/... \
             ./runtime/apiextensions/... ./runtime/namespace/... ./runtime/filters/... ./runtime/registry/... \
             ./runtime/metrics/... ./runtime/gcpacer/... ./runtime/warning/... ./runtime/auth/... \
             ./runtime/validation/cel/... ./runtime/discovery/... ./runtime/openapi/...
# SLOW_PKGS go first in each pass, slowest first: go test starts packages in the order it is
# given them, and in import-path order scaffold (a third of the pass, its tests building whole
# repositories) started last and ran alone at the end.
SLOW_PKGS := ./scaffold ./example-api/e2e ./generators ./example-api/bench/loadgen ./cmd/apigen/cli ./runtime/app
# Test binaries are linked without DWARF (-ldflags=-w, also in the builds the tests run, which
# inherit GOFLAGS): no test reads it, and it is a fifth of each link's CPU (runtime/app's test
# binary: 13.5 CPU-s with it, 10.6 without).
test test-short fuzz: export GOFLAGS := $(strip $(GOFLAGS) -ldflags=-w)
# Their C (kine's SQLite driver, github.com/mattn/go-sqlite3: 9.5 MB of it) is compiled
# unoptimized and without debug information (CGO_CFLAGS, in place of cgo's default -O2 -g):
# 8.7 CPU-s a compile against 61, and a cold make test compiles it twice (the race pass
# again). No test measures the speed of C; make build, run and bench keep -O2.
test test-short fuzz: export CGO_CFLAGS := -O0
test:
	@mkdir -p $(BIN); start=$$(date +%s); \
	$(MAKE) --no-print-directory vet || exit 1; $(GO) tool apigen verify ./example-api/... ./runtime/apis/... || exit 1; \
	checked=$$(date +%s); \
	all=$$($(GO) list $(TEST_PKGS)) || exit 1; slow=$$($(GO) list $(SLOW_PKGS) | grep -xF "$$all"); \
	all=$$(echo "$$slow"; echo "$$all" | grep -vxF "$$slow"); \
	race=$$(echo "$$all" | grep -xF "$$($(GO) list $(RACE_PKGS))"); \
	plain=$$(echo "$$all" | grep -vxF "$$race"); rm -f $(TEST_JSON) $(RACE_JSON); status=0; \
	[ -z "$$plain" ] || $(GOTESTSUM) --format pkgname --jsonfile $(TEST_JSON) -- -vet=off $(TEST_FLAGS) $$plain || status=$$?; \
	tested=$$(date +%s); \
	[ -z "$$race" ] || $(GOTESTSUM) --format pkgname --jsonfile $(RACE_JSON) -- -race -vet=off $(TEST_FLAGS) $$race || status=$$?; \
	raced=$$(date +%s); \
	echo "the ten slowest tests (race: under the race detector):"; \
	{ $(GOTESTSUM) tool slowest --jsonfile $(TEST_JSON) --threshold 1s; \
	  $(GOTESTSUM) tool slowest --jsonfile $(RACE_JSON) --threshold 1s | sed 's/$$/ (race)/'; } 2>/dev/null | \
		awk '{ t=$$3; s=0; if (t ~ /m/) { split(t, a, "m"); s=a[1]*60; t=a[2] } sub(/s.*/, "", t); print s+t "\t" $$0 }' | \
		sort -rn | head -10 | cut -f2-; \
	if $(MAKE) --no-print-directory fuzz > $(FUZZ_LOG) 2>&1; then grep -E '^(fuzz [A-Z]|ok )' $(FUZZ_LOG); \
	else status=1; echo "make fuzz failed:"; cat $(FUZZ_LOG); fi; end=$$(date +%s); \
	echo "make test took $$((end-start))s: vet and verify $$((checked-start))s, tests $$((tested-checked))s," \
		"race $$((raced-tested))s, fuzz $$((end-raced))s"; \
	exit $$status

## fuzz: each fuzz target from its committed corpus (testdata/fuzz) for a number of inputs
## that takes about 10s here (a count, not -fuzztime=20s: a time limit that ends during input
## minimization makes go test fail with "context deadline exceeded"); a failure writes the
## failing input to testdata/fuzz. internal/crddiff's FuzzDifferential is not among them: its
## inputs only seed a generator, and its instrumented build cost as much as the ten others';
## make test draws as many of its inputs at random instead (TestDifferentialDraws). go test
## -fuzz builds every package of the test binary's tree anew with coverage instrumentation,
## so a fuzz target lives where that tree is small: body decoding in runtime/endpoints/requestbody
## (not endpoints), the db group's codecs beside its hub (not install)
FUZZ_TARGETS := ./runtime/request:FuzzParseRequestInfo:150000x \
                ./runtime/endpoints/requestbody:FuzzDecodeBody:20000x \
                ./runtime/serializer/json:FuzzInterpret:100000x \
                ./runtime/request:FuzzQueryParam:50000x \
                ./runtime/jsoncodec:FuzzReaderString:50000x \
                ./runtime/jsoncodec:FuzzReaderNumber:25000x \
                ./runtime/jsoncodec:FuzzWriterString:50000x \
                ./runtime/jsoncodec:FuzzValid:75000x \
                ./runtime/jsoncodec:FuzzReaderRaw:50000x \
                ./example-api/apis/db:FuzzJSONCodec:10000x
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; rest=$${t#*:}; name=$${rest%%:*}; count=$${rest#*:}; \
		echo "fuzz $$name in $$pkg for $$count inputs"; \
		$(GO) test -vet=off -run '^$$' -fuzz "^$$name$$" -fuzztime $$count $$pkg; \
	done

## test-short: the fast inner loop; skips the end-to-end tests and those starting servers or etcd members
test-short:
	$(GO) test -short ./...

## bench: benchmarks, printed as ratios against baselines measured in the same run: the Go
## benchmarks (among them the garbage collector collecting 10,000 dependents of one owner,
## s/collect, against deleting them directly; runtime/garbagecollector), then the example
## server against raw etcd (example-api/bench/loadgen: create, get, update, apply
## (server-side), list at 1, 8, 64 clients; ops/s, p50/p99, server/raw, server CPU and RSS;
## watch fan-out; memory figures; the floors of get and of the watch fan-outs, measured
## against a server that does nothing else) over HTTPS with the admin client certificate and gzip, on
## its embedded etcd (the default; the targets; with the server CPU of an update with and
## without field management), on an external one (-etcd external), an unpaginated list of
## 10,000 objects at 1 and 64 clients (-page-size 0), over plain HTTP
## (-transport http), then create, get and update at 64 clients against 2 server replicas
## behind one client-side round robin on a 3-member etcd cluster (-etcd cluster; raw: clientv3
## on the same 3 members; server CPU and RSS summed over the replicas), beside the single
## server's figures of the runs before,
## then bench-gen. The runs on the embedded and the external etcd and the unpaginated list measure the anchor beside the
## server (bench-anchor: kube's own apiserver library, k8s.io/sample-apiserver, on the same
## etcd, the same workloads on its Flunders; the 1,000- and 10,000-watcher fan-outs and the
## memory figures of both; every row as a ratio to the anchor and to raw etcd, and the scale
## targets), and every run is pinned (-pin auto: etcd, the server and loadgen on disjoint CPU
## sets on a machine of 12 CPUs or more)
bench: bench-anchor
	$(GO) test -run '^$$' -bench . -benchmem ./...
	$(GO) build -o $(BIN)/example-apiserver ./example-api/cmd/example-apiserver
	$(GO) run ./example-api/bench/loadgen -server-binary $(BIN)/example-apiserver -anchor-binary $(ANCHOR) -pin auto -field-management-cost
	$(GO) run ./example-api/bench/loadgen -server-binary $(BIN)/example-apiserver -anchor-binary $(ANCHOR) -pin auto -etcd external -watch '' -mem-objects 0
	$(GO) run ./example-api/bench/loadgen -server-binary $(BIN)/example-apiserver -anchor-binary $(ANCHOR) -pin auto -ops list -objects 10000 -page-size 0 -clients 1,64 -watch '' -mem-objects 0 -floor=false
	$(GO) run ./example-api/bench/loadgen -server-binary $(BIN)/example-apiserver -pin auto -transport http -watch '' -mem-objects 0
	$(GO) run ./example-api/bench/loadgen -server-binary $(BIN)/example-apiserver -pin auto -etcd cluster -clients 64 -ops create,get,update -watch '' -mem-objects 0
	$(MAKE) bench-gen

## bench-anchor: install the benchmark's anchor, k8s.io/sample-apiserver at ANCHOR_VERSION (the
## Kubernetes release of go.mod's k8s.io/apiserver), into $(BIN)/anchor with go install through
## the Go module proxy: a binary of its own, not a dependency of this module
## (example-api/bench/loadgen -anchor-binary runs it); without the symbol table and DWARF
## (-s -w: 82 MB against 118; its profiles are symbolized from the Go tables it keeps), so
## that bench-sitting carries this same build
ANCHOR_VERSION := v0.37.2
ANCHOR := $(BIN)/anchor/sample-apiserver
bench-anchor:
	GOBIN=$(abspath $(BIN)/anchor) $(GO) install -ldflags "-s -w" k8s.io/sample-apiserver@$(ANCHOR_VERSION)

## bench-sitting: prepare the sitting the closing 16-core figures come from, to be carried to a
## machine without Go (about 48 MB, under the device tool's 64 MiB): example-apiserver and
## loadgen (stripped) and the anchor (bench-anchor's), xz-compressed, the commit they were built at, and
## example-api/bench/sitting.sh, into $(BIN)/sitting; there, `OUT=dir bash sitting.sh` runs
## every step in at most 600 s (the steps are in the script)
SITTING := $(BIN)/sitting
bench-sitting: bench-anchor
	@rm -rf $(SITTING); mkdir -p $(SITTING)
	$(GO) build -ldflags "-s -w" -o $(SITTING)/example-apiserver ./example-api/cmd/example-apiserver
	$(GO) build -ldflags "-s -w" -o $(SITTING)/loadgen ./example-api/bench/loadgen
	cp $(ANCHOR) $(SITTING)/sample-apiserver
	xz -T0 $(SITTING)/example-apiserver $(SITTING)/loadgen $(SITTING)/sample-apiserver
	cp example-api/bench/sitting.sh $(SITTING)/
	git describe --always --dirty > $(SITTING)/COMMIT

## bench-gen: apigen generate (typed clients included) on example-api and the compatibility
## corpus against a bare go/packages load of the same packages (ratio; target <= 1.5x), then
## code-generator's deepcopy-gen, conversion-gen, defaulter-gen, client-gen, lister-gen,
## informer-gen and applyconfiguration-gen and controller-gen on the corpus, installed through
## the Go module proxy when it is reachable (cmd/benchgen)
bench-gen:
	$(GO) run ./cmd/benchgen
