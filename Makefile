# offload.testbed: `make lab` builds and runs the virtual lab; `make test` runs
# every test. Both work on a fresh Debian 12 machine as root with Python 3.11.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

ROOT := $(CURDIR)
PYTHON ?= python3
VENV := $(ROOT)/.venv
BIN := $(VENV)/bin
TMP := $(ROOT)/.tmp
COLLECTIONS ?= $(TMP)/collections
BUILD ?= $(TMP)/build
SANITY_DIR ?= $(TMP)/sanity/ansible_collections/offload/testbed
INVENTORY ?= inventories/virtual
# Host packages are declared once, in bindep.txt.
APT_PACKAGES := $(shell sed -n 's/^\([a-z0-9.+-]*\) *\[platform:dpkg.*/\1/p' bindep.txt)

export PATH := $(BIN):$(PATH)
export ANSIBLE_CONFIG := $(ROOT)/ansible.cfg
export ANSIBLE_COLLECTIONS_PATH := $(COLLECTIONS)
export ANSIBLE_FORCE_COLOR := 0
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: help history lab lab-vm lab-vm-up lab-vm-image lab-vm-down vm-lab-test lab-compare lab-tunnel test deps sources apt venv collection ee lint sanity unit integration molecule teardown clean

help:
	@echo "make lab       run playbooks/site.yml on the virtual lab: every stage, real traffic, the benchmark and its report"
	@echo "               (OVN=source: on OVN built from source, role ovn_build; DATAPATH=dpdk: the DUT on OVS-DPDK)"
	@echo "make lab-compare  after make lab: compare OVS-DPDK with the userspace datapath (compare.yml), report in results/compare/report"
	@echo "make history   after make lab (twice or more): the trends of the results database, each change a regression or a progression"
	@echo "make lab-tunnel   after make lab: the tunnel offload bench (VXLAN: iperf3 through it, frames searched into and out of it), report in results/tunnel"
	@echo "make lab-vm    three Debian guests under QEMU (inventories/vm): site.yml over SSH on the kernel datapath, real reboot,"
	@echo "               SR-IOV VFs, vfio-pci, OVN with Geneve, then compare.yml: the kernel datapath with TC, the userspace"
	@echo "               datapath and OVS-DPDK against the kernel datapath"
	@echo "make lab-vm-image build only QEMU and the guest image (cached in .tmp/vm-lab), start no guest"
	@echo "make lab-vm-down  stop the guests and remove their disks (the image cache in .tmp/vm-lab stays)"
	@echo "make test      ansible-lint, ansible-test sanity, unit, integration and molecule tests"
	@echo "make teardown  remove the virtual lab"
	@echo "make ee        the execution environment's build context (meta/execution-environment.yml) in .tmp/ee/context, checked"

deps: apt venv collection

# The Open vSwitch 3.3.8 and OVN 24.03.8 release archives that the OVN build
# test, molecule ovn_source and `make lab OVN=source` build from: where
# OFFLOAD_TESTBED_SOURCES says (a directory, or a URL base such as
# file:///srv/mirror/), else in ../shared/sources beside the checkout, else
# downloaded from upstream into .tmp/sources; each checked against the sums
# kept in plugins/module_utils/datapath/ovn_sources.py (docs/ovn.md). Found
# first, so that a clone without them stops here with one message.
sources: venv
	$(BIN)/python tools/ovn_sources.py

apt: $(TMP)/apt.stamp
$(TMP)/apt.stamp: bindep.txt
	@if [ "$$(id -u)" != 0 ]; then echo "make: run as root (apt-get, network namespaces and Open vSwitch need it)" >&2; exit 1; fi
	@if ! dpkg -s $(APT_PACKAGES) >/dev/null 2>&1; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(APT_PACKAGES); \
	fi
	@mkdir -p $(TMP) && touch $@

venv: $(BIN)/.installed
$(BIN)/.installed: requirements.txt requirements-test.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -r requirements-test.txt
	touch $@

# Build the collection tarball from the working tree and install it where
# ansible.cfg looks (ANSIBLE_COLLECTIONS_PATH).
collection: venv
	rm -rf $(BUILD) && mkdir -p $(BUILD) $(COLLECTIONS)
	$(BIN)/ansible-galaxy collection build --force --output-path $(BUILD) . >/dev/null
	cp $(BUILD)/offload-testbed-*.tar.gz $(BUILD)/offload-testbed.tar.gz
	$(BIN)/ansible-galaxy collection install --force -p $(COLLECTIONS) $(BUILD)/offload-testbed.tar.gz >/dev/null
	@echo "installed offload.testbed $$(sed -n 's/^version: //p' galaxy.yml) into $(COLLECTIONS)"

# The execution environment (meta/execution-environment.yml): ansible-builder
# makes its build context from the collection tarball above, and
# tools/ee_check.py checks it (the paths the Containerfile copies, the
# collection in it, the requirements, and introspection run as the image build
# would). Building the image itself needs a container engine, which these
# machines cannot run: docs/execution_environment.md.
EE_CONTEXT ?= $(TMP)/ee/context
ee: collection
	rm -rf $(EE_CONTEXT)
	$(BIN)/ansible-builder create -f meta/execution-environment.yml --context $(EE_CONTEXT) --output-filename Containerfile >/dev/null
	$(BIN)/python tools/ee_check.py --definition meta/execution-environment.yml --context $(EE_CONTEXT)

# The whole bench, playbooks/site.yml, on inventories/virtual: the lab's
# namespaces and wires, the host stages on emulated hardware (DOCA, firmware,
# boot arguments and the emulated reboot, switchdev and VFs), Open vSwitch and
# OVN, the topology proven with real packets, the generator (softgen) and the
# benchmark matrix through it; results and the report land in results/.
# OVN=source runs the lab on OVN 24.03.8 built from source against Open
# vSwitch 3.3.8 (role ovn_build, from the release archives: see `sources`;
# installed into .tmp/ovn-build; the first build takes about three minutes on
# two cores); the default is the distribution's OVN.
# DATAPATH=dpdk runs the DUT's Open vSwitch as OVS-DPDK (Debian's
# openvswitch-switch-dpdk, hugepages reserved by the dpdk_host role, the lab's
# veths as ports of type dpdk through DPDK's AF_PACKET driver, one PMD thread);
# the default is the userspace datapath on ovs-vswitchd's own AF_PACKET sockets.
OVN ?= distribution
LAB_OVN_VARS := $(if $(filter source,$(OVN)),-e ovn_build_enabled=true,$(if $(filter distribution,$(OVN)),,$(error OVN=$(OVN): give OVN=source or leave OVN unset for the distribution's OVN)))
DATAPATH ?= netdev
LAB_DATAPATH_VARS := $(if $(filter netdev dpdk,$(DATAPATH)),-e lab_datapath=$(DATAPATH),$(error DATAPATH=$(DATAPATH): give DATAPATH=dpdk or leave DATAPATH unset for netdev))
lab: deps $(if $(filter source,$(OVN)),sources)
	$(BIN)/ansible-playbook -i $(INVENTORY) playbooks/site.yml $(LAB_OVN_VARS) $(LAB_DATAPATH_VARS) -e bench_results_dir=$(ROOT)/results -e bench_run_suffix=-$$(date -u +%Y%m%dT%H%M%S)
	@echo "make lab: the bench is built and checked with real TCP and UDP through Open vSwitch and OVN; benchmark matrix done."
	@echo "make lab: results in $(ROOT)/results, the report in $(ROOT)/results/report (report.md, report.html)."

# After `make lab`: playbooks/compare.yml on the lab's two variants
# (bench_compare_variants in inventories/virtual/host_vars/lab-dut.yml: the
# two real datapaths of this machine, OVS-DPDK against the userspace datapath
# on ovs-vswitchd's own AF_PACKET sockets) over a reduced matrix; results and
# the report with the speedup table in results/compare/.
COMPARE_RESULTS ?= $(ROOT)/results/compare
COMPARE_MATRIX ?= {"bench_scenarios": ["routing", "nat", "lb"], "bench_protocols": ["udp", "tcp"], "bench_frame_sizes": [64]}
lab-compare: deps
	@if ! ip netns list | grep -q '^ltb-gen\b' || ! ovs-vsctl --timeout=5 br-exists underlay 2>/dev/null; then \
	  echo "make lab-compare: the virtual lab is not there; build it with make lab first" >&2; exit 1; fi
	$(BIN)/ansible-playbook -i $(INVENTORY) playbooks/compare.yml -e bench_results_dir=$(COMPARE_RESULTS) \
	  -e '$(COMPARE_MATRIX)' -e bench_run_suffix=-$$(date -u +%Y%m%dT%H%M%S)
	@echo "make lab-compare: results in $(COMPARE_RESULTS), the report with the speedup table in $(COMPARE_RESULTS)/report/report.md."

# The trends of the results database after one or more `make lab`: each
# series of bounds over the runs, grouped by jumpavg, every change a
# regression or a progression (playbooks/history.yml, docs/results_db.md).
history: deps
	$(BIN)/ansible-playbook -i localhost, -c local playbooks/history.yml -e bench_results_dir=$(ROOT)/results -e ansible_python_interpreter=$(BIN)/python
	@echo "make history: the dashboard is $(ROOT)/results/dashboard.html (open it in a browser; docs/dashboard.md)."

# The tunnel offload bench on the built lab: VXLAN through the DUT's bridge
# br-tun, the MTU rule checked with packets, iperf3 TCP streams through it,
# and trex_bench's searches of frames it decapsulates and encapsulates.
TUNNEL_RESULTS ?= $(ROOT)/results/tunnel
lab-tunnel: deps
	@if ! ip netns list | grep -q '^ltb-vtep\b' || ! ovs-vsctl --timeout=5 br-exists br-tun 2>/dev/null; then \
	  echo "make lab-tunnel: the virtual lab is not there; build it with make lab first" >&2; exit 1; fi
	$(BIN)/ansible-playbook -i $(INVENTORY) playbooks/tunnel.yml -e tunnel_bench_results_dir=$(TUNNEL_RESULTS)
	@echo "make lab-tunnel: the trials and report.md are in $(TUNNEL_RESULTS)."

# The VM lab (inventories/vm, docs/vm_lab.md): three Debian guests under QEMU,
# reached over SSH. lab-vm-up builds the image once and starts the guests;
# lab-vm-down stops them and removes their disks (the image cache stays).
VM_INVENTORY := inventories/vm
VM_RESULTS ?= $(ROOT)/results/vm
VM_RUN ?= $(shell date -u +%Y%m%dT%H%M%S)
# lab-vm: the guests, then playbooks/site.yml on them (the kernel datapath as
# the DUT's; its benchmark is the baseline), then compare.yml: the kernel
# datapath with TC flower (hw-offload, tc-policy skip_hw), the userspace
# datapath and OVS-DPDK against it. The baseline's trials are on disk under
# the same run suffix: compare.yml replays them instead of measuring them again.
lab-vm: lab-vm-up
	$(BIN)/ansible-playbook -i $(VM_INVENTORY) playbooks/site.yml -e bench_results_dir=$(VM_RESULTS) -e bench_run_suffix=-$(VM_RUN)
	$(BIN)/ansible-playbook -i $(VM_INVENTORY) playbooks/compare.yml -e bench_results_dir=$(VM_RESULTS) -e bench_run_suffix=-$(VM_RUN)
	@echo "make lab-vm: results in $(VM_RESULTS), the report of every variant against the kernel datapath in $(VM_RESULTS)/report/report.md."

lab-vm-up: deps
	$(BIN)/ansible-playbook -i $(VM_INVENTORY) playbooks/vm_lab.yml

# lab-vm-image: only QEMU and the guest image (vm_lab_state=image), no guest.
lab-vm-image: deps
	$(BIN)/ansible-playbook -i $(VM_INVENTORY) playbooks/vm_lab.yml -e vm_lab_state=image

lab-vm-down: deps
	$(BIN)/ansible-playbook -i $(VM_INVENTORY) playbooks/vm_lab.yml -e vm_lab_state=absent

teardown: deps
	$(BIN)/ansible-playbook -i $(INVENTORY) playbooks/teardown.yml

# ansible-lint, ansible-test sanity, the unit tests and the execution
# environment's build context (ee) only read the tree and touch no network or
# Open vSwitch: they run side by side on the two cores of a CI machine, their
# outputs kept apart; integration and molecule share the machine's Open
# vSwitch and run one after the other. The OVN build test
# (tests/integration/test_ovn_build.py) only compiles, under .tmp/ovn-build:
# it runs from the start at the lowest CPU priority (nice 19), on what the
# other stages leave idle (Ansible runs one task at a time, on one core); the
# scenario ovn_source, which runs on its build, comes after it.
OVN_BUILD_TEST := tests/integration/test_ovn_build.py
# The lost-generator test needs the whole virtual lab: molecule default's
# verify runs it on the lab its converge built (it builds one itself when run alone).
GENERATOR_LOSS_TEST := tests/integration/test_generator_loss.py
# The host stages' scenarios build an emulated host of their own in their
# molecule directories and touch neither Open vSwitch nor namespaces: they
# run beside too, after the OVN build test, on a copy of the collection. (The
# VM lab's image is not built beside: measured, its dpkg runs slowed the other
# stages by more than it saved.)
SCENARIOS_HOST := host_boot_sriov host_doca_firmware host_ddp
# The checks of scenario ovn run in default's verify, on the lab it built (molecule/default/verify.yml).
SCENARIOS_WITHOUT_BUILD := default trex_server
SCENARIOS_ON_BUILD := ovn_source
test: deps sources
	@TMP=$(TMP) BIN=$(BIN) OVN_BUILD_TEST=$(OVN_BUILD_TEST) HOST_SCENARIOS="$(SCENARIOS_HOST)" tools/beside.sh start
	@trap 'TMP=$(TMP) tools/beside.sh stop' EXIT; \
	  $(MAKE) --no-print-directory -j3 --output-sync=target lint sanity unit ee && \
	  $(MAKE) --no-print-directory integration INTEGRATION_TESTS="--ignore=$(OVN_BUILD_TEST) --ignore=$(GENERATOR_LOSS_TEST) tests/integration" && \
	  $(MAKE) --no-print-directory molecule SCENARIOS="$(SCENARIOS_WITHOUT_BUILD)" && \
	  TMP=$(TMP) HOST_SCENARIOS="$(SCENARIOS_HOST)" tools/beside.sh wait && \
	  $(MAKE) --no-print-directory molecule SCENARIOS="$(SCENARIOS_ON_BUILD)" && \
	  $(MAKE) --no-print-directory vm-lab-test
	@echo "make test: all test stages passed"

# --offline: make has installed the collection into .tmp/collections
# (ANSIBLE_COLLECTIONS_PATH); .ansible-lint is not offline, for a plain
# ansible-lint in a fresh clone, which installs the working tree into ./.ansible.
# ANSIBLE_HOME: ansible-lint puts its cache's collections first, and with
# ANSIBLE_* set that cache is ~/.ansible, where another ansible-lint may have
# left an older copy of this collection.
lint: deps
	ANSIBLE_HOME=$(TMP)/ansible-lint $(BIN)/ansible-lint --offline --profile production

# ansible-test needs the collection under ansible_collections/<ns>/<name> and
# bootstraps pip into its virtual environments from a script it downloads.
# Offline, it says where that script can be saved instead: a first, quick
# test (changelog) asks it, and tests/sanity/get_pip_standin.py goes there.
PYTHON_VERSION = $$($(BIN)/python -c 'import sys; print("%d.%d" % sys.version_info[:2])')
sanity: deps
	rm -rf $(SANITY_DIR) && mkdir -p $(SANITY_DIR)
	git ls-files -co --exclude-standard -z | rsync -a --ignore-missing-args --from0 --files-from=- ./ $(SANITY_DIR)/
	cd $(SANITY_DIR) && git init -q && git add -A
	@cd $(SANITY_DIR) && if ! out=$$($(BIN)/ansible-test sanity --test changelog --python $(PYTHON_VERSION) --color no 2>&1); then \
	  path=$$(sed -n 's/^.*can be manually downloaded and saved to: *//p' <<<"$$out"); \
	  if [ -z "$$path" ]; then echo "$$out"; exit 1; fi; \
	  echo "make sanity: ansible-test cannot download its pip bootstrap script; the offline stand-in goes to $$path"; \
	  mkdir -p "$$(dirname "$$path")" && cp $(ROOT)/tests/sanity/get_pip_standin.py "$$path"; \
	fi
	cd $(SANITY_DIR) && $(BIN)/ansible-test sanity --python $(PYTHON_VERSION) --color no

unit: deps
	$(BIN)/pytest -q tests/unit

INTEGRATION_TESTS ?= tests/integration
integration: deps
	$(BIN)/pytest -q --durations=10 $(INTEGRATION_TESTS)

# The VM lab run for real (tests/vm, docs/vm_lab.md): guests, site.yml,
# compare.yml, a second run that changes nothing, a reboot, the lab removed.
# Last and alone: its QEMU guests take both cores.
VM_LAB_TEST ?= tests/vm
vm-lab-test: deps
	BIN=$(BIN) $(BIN)/pytest -q -s -p no:cacheprovider $(VM_LAB_TEST)

# The molecule log is kept in .tmp/molecule.log; when a scenario fails, the
# failing tasks are printed again at the very end, where a CI tail shows them.
# SCENARIOS="default ovn" runs those, in that order; unset, every scenario.
SCENARIOS ?=
molecule: deps
	@mkdir -p $(TMP) && : > $(TMP)/molecule.log
	@set +e; rc=0; for scenario in $(if $(SCENARIOS),$(SCENARIOS),--all); do \
	    [ $$rc = 0 ] || break; \
	    if [ "$$scenario" = --all ]; then args=--all; else args="-s $$scenario"; fi; \
	    ANSIBLE_CALLBACKS_ENABLED=ansible.posix.timer $(BIN)/molecule test $$args 2>&1 | tee -a $(TMP)/molecule.log; rc=$${PIPESTATUS[0]}; \
	  done; \
	  if [ $$rc != 0 ]; then \
	    echo "== make molecule: failed (exit $$rc); the failing tasks, from $(TMP)/molecule.log:"; \
	    awk '/^TASK \[/ {task=$$0} /^(fatal|failed): |^ERROR! |^CRITICAL / {print task; print substr($$0, 1, 900)}' $(TMP)/molecule.log | tail -n 8; \
	  fi; exit $$rc

clean:
	rm -rf $(TMP)
