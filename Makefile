# Two set-up commands for a fresh machine: `make demo` and `make test`.
# Everything they need (real robots from PyPI, Rust dependencies) is installed here.

ROBOT_PINS := example-robot-data==6.0.0 openarm-mujoco==2.3.0 robosuite==1.5.2
ROBOT_STAMP := .robots/installed
# Python tools the tests run, in the Makefile's own venv: the xacro expander (xacrodoc
# needs no ROS; it runs the xacro it depends on, pinned too) and the consumers tests/export.rs
# loads the exports with (Pinocchio with coal, MuJoCo, a strict URDF reader; scipy for the hull check).
# maturin builds the Python module's wheel (crates/collide-py); pytest and numpy run its tests.
PY_PINS := xacrodoc==2.0.1 xacro==2.1.1 pin==4.1.0 mujoco==4.0.1 yourdfpy==0.0.60 scipy==1.17.1 \
	maturin==1.16.0 pytest==9.2.0 numpy==2.4.6
VENV := .venv
VENV_STAMP := $(VENV)/installed
CARGO ?= cargo
COLLIDE := target/release/collide

.PHONY: robots venv build demo test bench fmt lint clean-robots fleet outside report consumers drake-venv c-example py-module

# Pinned robot descriptions, installed without their Python dependencies (we only read files).
robots:
	@if [ "$$(cat $(ROBOT_STAMP) 2>/dev/null)" != "$(ROBOT_PINS)" ]; then \
		echo "installing robots: $(ROBOT_PINS)"; \
		rm -rf .robots && mkdir -p .robots && \
		python3 -m pip install --quiet --disable-pip-version-check --no-deps --target .robots/site $(ROBOT_PINS) && \
		echo "$(ROBOT_PINS)" > $(ROBOT_STAMP); \
	fi

# The venv is rebuilt whenever the pin list changes.
venv:
	@if [ "$$(cat $(VENV_STAMP) 2>/dev/null)" != "$(PY_PINS)" ]; then \
		echo "installing python tools: $(PY_PINS)"; \
		rm -rf $(VENV) && python3 -m venv $(VENV) && \
		$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check $(PY_PINS) && \
		echo "$(PY_PINS)" > $(VENV_STAMP); \
	fi

build:
	$(CARGO) build --release --locked

demo: robots build
	$(COLLIDE) inspect robots/franka_panda/robot.yaml | head -20
	@echo
	$(COLLIDE) lower robots/franka_panda/robot.yaml --check && echo "manifest up to date"
	$(COLLIDE) lower robots/franka_panda/robot.yaml --json | head -30
	$(COLLIDE) acm regenerate robots/franka_panda/robot.yaml --samples 2000 | head -60
	$(COLLIDE) verify robots/franka_panda/manifest.yaml

# tests/xacro.rs expands through the venv's xacrodoc, found through COLLIDE_XACRO; tests/export.rs
# runs the consumer checks (tests/consumers/*.py) with the venv's python, found through COLLIDE_PYTHON.
# py-module runs after the root package's tests: they build target/release/collide, which
# its sweep comparison runs, so its `build` is then a no-op (CI time: the binary once).
test: robots venv c-example
	COLLIDE_XACRO="$(CURDIR)/$(VENV)/bin/xacrodoc" COLLIDE_PYTHON="$(CURDIR)/$(VENV)/bin/python" $(CARGO) test --release --locked
	$(MAKE) py-module
	$(CARGO) test --release --locked -p collide-kernel

# The C example against the kernel library's staticlib and committed header (docs/kernel-library.md):
# built with the system's cc, run on the Panda manifest; any error exits non-zero.
CC ?= cc
C_EXAMPLE := target/c-example/check_trajectory
c-example:
	$(CARGO) build --release --locked -p collide-kernel
	mkdir -p target/c-example
	$(CC) -std=c99 -Wall -Wextra -Werror -O2 -Icrates/collide-kernel/include examples/c/check_trajectory.c \
		target/release/libcollide_kernel.a -lpthread -ldl -lm -o $(C_EXAMPLE)
	$(C_EXAMPLE) robots/franka_panda/manifest.yaml > target/c-example/panda.txt
	tail -3 target/c-example/panda.txt

# The Python module (docs/kernel-library.md, "Python"): one abi3 wheel built with the venv's
# maturin, installed into the venv, its tests run against the C library's cdylib (built by
# c-example's cargo) and against `collide sweep --verdicts` (the release binary, judging
# the robots' meshes), and the IK example run for a few steps so it cannot rot.
py-module: robots venv build c-example
	rm -f target/wheels/collide-*.whl
	$(VENV)/bin/maturin build --release --locked -m crates/collide-py/Cargo.toml -o target/wheels
	$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps target/wheels/collide-*.whl
	COLLIDE_KERNEL_LIB="$(CURDIR)/target/release/libcollide_kernel.so" COLLIDE_BIN="$(CURDIR)/$(COLLIDE)" \
		$(VENV)/bin/python -m pytest -q tests/python
	$(VENV)/bin/python examples/python/ik_track.py --steps 20 > target/wheels/ik_track.txt
	tail -4 target/wheels/ik_track.txt

# Drake is large (hundreds of MB): its consumer check has its own venv and target, outside
# `make test`. Drake loads the drake export of the Panda and the G1; its filter must match the ACM.
DRAKE_PINS := drake==1.51.1
DRAKE_VENV := .venv-drake
DRAKE_STAMP := $(DRAKE_VENV)/installed
DRAKE_ROBOTS := franka_panda g1_29dof
drake-venv:
	@if [ "$$(cat $(DRAKE_STAMP) 2>/dev/null)" != "$(DRAKE_PINS)" ]; then \
		echo "installing drake: $(DRAKE_PINS)"; \
		rm -rf $(DRAKE_VENV) && python3 -m venv $(DRAKE_VENV) && \
		$(DRAKE_VENV)/bin/python -m pip install --quiet --disable-pip-version-check $(DRAKE_PINS) && \
		echo "$(DRAKE_PINS)" > $(DRAKE_STAMP); \
	fi

consumers: robots build drake-venv
	for r in $(DRAKE_ROBOTS); do rm -rf target/consumers/$$r; \
		$(COLLIDE) export robots/$$r/manifest.yaml --target drake --target pinocchio --out target/consumers/$$r -q >/dev/null || exit 1; \
		COLLIDE_DRAKE_PACKAGES="$(CURDIR)/.robots/site/cmeel.prefix/share" $(DRAKE_VENV)/bin/python tests/consumers/drake_check.py \
			--collide $(COLLIDE) --config robots/$$r/robot.yaml --manifest robots/$$r/manifest.yaml \
			--export target/consumers/$$r --robot $$r || exit 1; done

bench: robots build
	$(CARGO) bench --locked
	scripts/bench-pipeline.sh

fmt:
	$(CARGO) fmt --all

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings

clean-robots:
	rm -rf .robots

# Lower every committed robot from scratch with the one default command (the fit rule,
# then automatic refinement against the meshes), regenerate its ACM, and re-prove it.
# An arm (at most 12 links with geometry, the refinement's ARM_LINKS) is re-lowered with the
# whole command until lowering it again changes no byte (at most three more rounds):
# `tests/fleet.rs` runs the whole command on the arms and requires the same bytes. A large
# robot is lowered once from scratch, its ACM regenerated, then its committed geometry
# refitted (`lower --no-refine`: each link at its committed piece count, which is what
# `tests/fleet.rs` runs on the large robots, whose refinement takes minutes).
FLEET_ARMS := franka_panda ur5 ur10 so100 so101 robosuite_panda robosuite_ur5e
FLEET_LARGE := g1_29dof talos_reduced tiago pr2 openarm_bimanual
FLEET := $(FLEET_ARMS) $(FLEET_LARGE)
fleet: robots build
	for r in $(FLEET_ARMS); do m=robots/$$r/manifest.yaml; rm -f $$m; n=0; \
		until [ -f $$m ] && cmp -s $$m $$m.prev; do \
			n=$$((n+1)); [ $$n -le 4 ] || { echo "$$r: re-lowering does not converge"; exit 1; }; \
			cp $$m $$m.prev 2>/dev/null || true; \
			$(COLLIDE) lower robots/$$r/robot.yaml --write -q >/dev/null || exit 1; \
			$(COLLIDE) acm regenerate robots/$$r/robot.yaml --write -q >/dev/null || exit 1; \
		done; rm -f $$m.prev; echo "$$r: $$n round(s)"; done
	for r in $(FLEET_LARGE); do m=robots/$$r/manifest.yaml; rm -f $$m; \
		$(COLLIDE) lower robots/$$r/robot.yaml --write -q >/dev/null || exit 1; \
		$(COLLIDE) acm regenerate robots/$$r/robot.yaml --write -q >/dev/null || exit 1; \
		$(COLLIDE) lower robots/$$r/robot.yaml --no-refine --write -q >/dev/null || exit 1; \
		cp $$m $$m.prev; $(COLLIDE) lower robots/$$r/robot.yaml --no-refine --write -q >/dev/null || exit 1; \
		cmp -s $$m $$m.prev || { echo "$$r: refitting the committed geometry changes it"; exit 1; }; \
		rm -f $$m.prev; echo "$$r: lowered, refitted"; done
	$(COLLIDE) verify robots/*/manifest.yaml -q

# Robots outside the fleet, set up as a new user would and nothing else: `collide init
# --adopt-contacts`, `lower --write`, `acm regenerate --write`, under target/outside/ (never
# committed: the configs and manifests are made fresh from the pinned descriptions).
ERD := .robots/site/cmeel.prefix/share/example-robot-data/robots
OUTSIDE := baxter_description/urdf/baxter.urdf tiago_pro_description/robots/tiago_pro.urdf \
	alexander_description/urdf/alexander_v1.lowerBodyOnly.urdf centauro_description/urdf/centauro.urdf \
	romeo_description/urdf/romeo.urdf
outside: robots build
	for u in $(OUTSIDE); do d=target/outside/$$(basename $$u .urdf); rm -rf $$d; \
		$(COLLIDE) init $(ERD)/$$u --out $$d --adopt-contacts -q >/dev/null || exit 1; \
		$(COLLIDE) lower $$d/robot.yaml --write -q >/dev/null || exit 1; \
		$(COLLIDE) acm regenerate $$d/robot.yaml --write -q >/dev/null || exit 1; done

# The fleet report: report/index.html and the committed docs/fleet.md, the robots outside
# the fleet in their own section (`collide report` writes under --out only; the Markdown
# page is asked for by name).
report: robots build outside
	$(COLLIDE) report --out report --fleet-md docs/fleet.md \
		$(foreach u,$(OUTSIDE),--outside target/outside/$(basename $(notdir $(u)))/manifest.yaml)
