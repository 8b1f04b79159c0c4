# Context Loader mesh — every target installs what it needs first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PACKAGES := libs/common libs/clctl services/gateway services/capability-index \
            services/tool-executor services/trace-recorder services/ontology-query \
            services/knowledge-base examples/upstreams
STAMP := $(VENV)/.installed

.PHONY: help install sandbox chromium run up down restart test test-unit test-integration lint bench faults conformance clean k8s-tools k8s-cluster k8s-test \
        image compose-test compose-down container-test

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-18s %s\n", $$1, $$2}'

$(STAMP): constraints.txt requirements-dev.txt $(addsuffix /pyproject.toml,$(PACKAGES))
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -c constraints.txt -r requirements-dev.txt $(addprefix -e ,$(PACKAGES))
	@touch $(STAMP)

install: $(STAMP)  ## create .venv and install every package, pinned by constraints.txt

sandbox:  ## bubblewrap for tool-executor's sandbox (apt-get when missing)
	@scripts/sandbox.sh

chromium:  ## Debian's chromium for the console's browser test (apt-get when missing)
	@scripts/chromium.sh >/dev/null

run: install sandbox  ## start Kafka, Redis, every service and the demo in the foreground (Ctrl-C stops all)
	$(PY) scripts/devmesh.py up --foreground

up: install sandbox  ## the same in the background; returns when every /readyz is green (.run/endpoints.json)
	$(PY) scripts/devmesh.py up

restart: install  ## restart one service of a running `make up` mesh: make restart SERVICE=capability-index [KILL=1]; prints seconds until /readyz
	@test -n "$(SERVICE)" || { echo "usage: make restart SERVICE=<name> [KILL=1]"; exit 2; }
	$(PY) scripts/devmesh.py restart $(SERVICE) $(if $(KILL),--kill,)

down:  ## stop everything `make up` started (services, Kafka, Redis; PostgreSQL if scripts/postgres.sh started it)
	@test -x $(PY) && $(PY) scripts/devmesh.py down || { scripts/kafka.sh stop; scripts/redis.sh stop; }
	@scripts/postgres.sh stop >/dev/null

k8s-tools: install  ## helm, helm-unittest, kubeconform, kube-score, kubectl and offline schemas (pinned, cached in .cache/k8s)
	scripts/k8s-tools.sh

k8s-cluster:  ## build (once, cached in .cache/k8s/cluster) etcd, kube-apiserver, controller-manager, scheduler and kwok
	scripts/k8s-cluster.sh build

k8s-test: install k8s-tools k8s-cluster  ## the chart on a real loopback kube-apiserver: install, test, upgrade, rollback, uninstall
	$(PY) -m pytest tests/k8s -q

image:  ## context-loader-mesh:dev with podman, no daemon (Debian-package bases when no registry answers), and dist/context-loader-mesh.oci.tar
	scripts/image.sh build

compose-test: install  ## docker-compose.yml under podman-compose: every service healthy, a managed function and OpenAPI call, stopped clean
	COMPOSE_TEST=1 $(PY) -m pytest tests/compose -q

compose-down:  ## stop and remove a compose project started by scripts/compose.sh up (COMPOSE_PROJECT_NAME, default context-loader)
	scripts/compose.sh down

container-test: install k8s-tools image  ## the image's tool-executor under the chart's exact securityContext: check-sandbox and the hostile tools contained
	CONTAINER_TEST_REQUIRED=1 $(PY) -m pytest tests/container -q

test: install sandbox chromium k8s-tools  ## unit, chart and integration tests (starts and stops the real Kafka, Redis and PostgreSQL it needs)
	$(PY) -m pytest tests -q

test-unit: install  ## unit tests only (no servers)
	$(PY) -m pytest tests/unit -q

test-integration: install sandbox chromium  ## integration tests only (real Kafka and Redis)
	$(PY) -m pytest tests/integration -q

lint: install  ## ruff, mypy --strict and the import contracts (.importlinter: layers, independence, no cycles)
	$(VENV)/bin/ruff check libs services examples tests bench scripts tools
	$(VENV)/bin/lint-imports --no-cache --no-logo
	$(VENV)/bin/mypy -p bkn_common -p clctl -p gateway -p capability_index -p tool_executor \
	    -p trace_recorder -p ontology_query -p knowledge_base

bench: install sandbox  ## benchmarks: print tables and write JSON under bench/results/
	$(PY) bench/run_all.py

faults: install sandbox  ## one fault at a time under load on a private mesh with its own Kafka and Redis; writes bench/results/faults.json (~10 min)
	$(PY) bench/faults.py

clean:  ## remove caches and run state (keeps .venv and the Kafka jar cache)
	rm -rf .run .pytest_cache .mypy_cache .ruff_cache

conformance: install sandbox  ## the official MCP conformance suite against a private mesh (baseline: tools/conformance/baseline.yml)
	$(PY) tools/conformance/run.py
