# SPDX-License-Identifier: GPL-2.0
# Resource Groups: build, test and run. See README.md.
#
#   make          kernel (debug), modules, selftests and tools/rgctl
#   make run      interactive guest with the modules built
#   make check    the quick tier (about 5 minutes with the kernels cached):
#                 every test file, long ones scaled down, in one debug guest
#                 boot, and the harness's self-tests; ends "N passed, N failed"
#   make check-full  everything at full size, plus the boots and guests the
#                 quick tier leaves out (what CI runs; about 20 minutes)
#   make stress   the stress run alone, STRESS_SECONDS (default 60) long;
#                 KCSAN=1: on the KCSAN kernel, after the concurrency tests
#   make bench    benchmarks (release kernel); writes bench/results.json
#   make profile  perf profiles of fork with and without the modules
#   make deb      the Debian packages res-groups-dkms and rgctl, in
#                 packaging/out/ (not the kernel's)
#   make deb-check  the same with the source package, lintian, and
#                 packaging/test-chroot (install and purge in a chroot)
#   make kernel-deb  Debian 12's kernel with the hooks as linux-image and
#                 linux-headers packages (KDEB=cloud-min, the default:
#                 ~30 minutes; KDEB=amd64: Debian's full configuration,
#                 hours); prints where they are
#   make e2e      the end-to-end test: make deb's packages and the
#                 cloud-min kernel installed in a Debian 12 image booted
#                 in QEMU (systemd, DKMS, a stock kernel, apt purge)

FLAVOR ?= debug
KDEB ?= cloud-min
STRESS_SECONDS ?= 60
# make stress KCSAN=1: the data-race detector's kernel (modules built for it).
ifeq ($(KCSAN),1)
FLAVOR := kcsan
endif
KCSAN_TESTS ?= test_members test_numtasks test_lifetime test_races test_cpu \
	       test_stress
KBUILD_FLAGS = W=1
# Every CPU for the builds (a fresh clone's build: 35 s serial, 19 s on 2).
JOBS ?= $(shell nproc)

.PHONY: all deps kernel modules selftests rgctl run check check-full stress bench profile clean \
	sparse checkpatch deb deb-check kernel-deb e2e

all: modules selftests rgctl

rgctl:
	$(MAKE) -j$(JOBS) -C tools/rgctl

deps:
	@qemu/deps

kernel: deps
	@qemu/build-kernel $(FLAVOR) >/dev/null

modules: kernel
	$(MAKE) -j$(JOBS) -C "$$(qemu/build-kernel $(FLAVOR))" M=$(CURDIR) $(KBUILD_FLAGS) modules

selftests: kernel
	$(MAKE) -j$(JOBS) -C selftests KSRC="$$(qemu/build-kernel $(FLAVOR))/source" all

run: all
	qemu/run --$(FLAVOR)

# (qemu/check builds all itself, for the debug kernel, booting its guest
# meanwhile)
check: deps
	@qemu/build-kernel debug > /dev/null
	qemu/check quick

check-full: all
	@qemu/deps full
	qemu/check full

ifeq ($(FLAVOR),kcsan)
# The detector's own check first: a data race planted in a module of ours
# must fail its run (exit 125, reports "involving our code"). Then the
# concurrency tests and the stress run, which must have none.
stress: all
	@rm -rf kcsan-out && mkdir -p kcsan-out
	@echo "KCSAN self-check: a planted data race must fail its run"
	@qemu/run --kcsan --timeout 900 --no-leak-check --keep kcsan-out/plant -- \
		insmod selftests/modules/rg_hooks_test.ko race=1 > kcsan-out/plant.log 2>&1; \
	rc=$$?; \
	if [ $$rc = 125 ] && grep -q 'KCSAN: [1-9][0-9]* reports involving our code' kcsan-out/plant.log && \
	   grep -q 'rg_hooks_test_racer' kcsan-out/plant/kcsan; then \
		echo "ok - KCSAN: the planted data race fails the run"; \
	else \
		tail -n 40 kcsan-out/plant.log; \
		echo "not ok - KCSAN: the planted data race was not reported (exit $$rc)"; \
		exit 1; \
	fi
	qemu/run --kcsan --keep kcsan-out --timeout $$(($(STRESS_SECONDS) + 1800)) -- \
		env RG_KUNIT= STRESS_SECONDS=$(STRESS_SECONDS) \
		selftests/run_tests.sh $(KCSAN_TESTS)
else
stress: all
	qemu/run --$(FLAVOR) --timeout $$(($(STRESS_SECONDS) + 900)) -- \
		sh -c 'cd selftests && STRESS_SECONDS=$(STRESS_SECONDS) ./test_stress'
endif

bench:
	@qemu/deps bench
	bench/run

profile: deps
	bench/run --profile

sparse: kernel
	$(MAKE) -C "$$(qemu/build-kernel $(FLAVOR))" M=$(CURDIR) C=2 $(KBUILD_FLAGS) modules

checkpatch: kernel
	"$$(qemu/build-kernel $(FLAVOR))/source/scripts/checkpatch.pl" --strict --no-tree \
		-f $$(git ls-files 'module/*.[ch]' 'include/*.h' \
		'selftests/*.[ch]')

deb:
	@qemu/deps deb
	packaging/build-deb

# The chroot test also builds the modules with DKMS for $(FLAVOR)'s kernel
# tree, as a kernel with the hooks (RG_KDIR).
deb-check: kernel
	@qemu/deps deb-check
	packaging/build-deb --source
	lintian -I -E --pedantic packaging/out/*.changes
	RG_KDIR="$$(qemu/build-kernel $(FLAVOR))" packaging/test-chroot

kernel-deb:
	@qemu/deps kernel-deb
	packaging/build-kernel-deb $(KDEB)

e2e:
	@qemu/deps e2e
	packaging/build-deb
	packaging/e2e

clean:
	$(MAKE) -C selftests clean
	$(MAKE) -C tools/rgctl clean
	rm -rf .tmp_versions
	find module selftests/modules \( -name '*.o' -o -name '*.ko' -o -name '*.mod' \
		-o -name '*.mod.c' -o -name '.*.cmd' -o -name 'modules.order' \
		-o -name 'Module.symvers' \) -delete
	rm -f Module.symvers modules.order
	rm -rf kcsan-out packaging/out
