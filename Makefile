# memverify — common tasks. Every target is a plain go command; see README.md.
GO        ?= go
FUZZTIME  ?= 20s
# Minimising each new interesting input may take this long (go's default is 60s,
# which slow targets like FuzzPool spend most of a short campaign on).
FUZZMIN   ?= 5s
BENCHTIME ?= 200ms
COUNT     ?= 10

.PHONY: test race fuzz bench mutants verify ci

test:
	$(GO) test ./...

race:
	$(GO) test -race ./impl/... ./props/... ./suites ./sched/... ./cabi/...

# Every fuzz target in ./fuzz for FUZZTIME each (go test -fuzz takes one target at a time).
fuzz:
	@for t in $$($(GO) test -list '^Fuzz' ./fuzz | grep '^Fuzz'); do \
		echo "== $$t ($(FUZZTIME))"; \
		$(GO) test ./fuzz -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMIN) || exit 1; \
	done

# Model, implementations and peers side by side, COUNT interleaved rounds, judged
# against the goals; the samples are kept in reports/bench-<UTC time>/bench.txt for benchstat.
bench:
	$(GO) run ./cmd/verify bench -count $(COUNT) -benchtime $(BENCHTIME)

mutants:
	$(GO) run ./cmd/verify mutants

verify:
	$(GO) run ./cmd/verify

ci:
	bash .ci/run
