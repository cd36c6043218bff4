#!/usr/bin/env bash
# build-driver.sh OUT: compile tests/slurm/exec-driver.c against the Slurm
# executor objects of the current build (same compiler and flags as
# build/llmb, including SANITIZE=...). Run `make` first.
set -eu
[ $# -eq 1 ] || { echo "usage: build-driver.sh OUT" >&2; exit 2; }
top=$(cd "$(dirname "$0")/../.." && pwd)
flags=$top/build/CFLAGS
for f in "$flags" "$top"/build/obj/exec/{slurm,slurmpend,slurmqueue,slurmlimits,throttle,executor,dryrun}.o "$top"/build/obj/recipe/slurmcmd.o "$top"/build/obj/store/{layout,job}.o "$top"/build/obj/base/{capture,util}.o; do
	[ -f "$f" ] || { echo "build-driver.sh: missing $f (run make)" >&2; exit 1; }
done
# build/CFLAGS holds one line: the compiler and every flag build/llmb used.
read -r -a cc <"$flags"
"${cc[@]}" -I "$top/generator" -o "$1" "$top/tests/slurm/exec-driver.c" \
	"$top"/build/obj/exec/{slurm,slurmpend,slurmqueue,slurmlimits,throttle,executor,dryrun}.o "$top"/build/obj/recipe/slurmcmd.o "$top"/build/obj/store/{layout,job}.o "$top"/build/obj/base/{capture,util}.o -lm
