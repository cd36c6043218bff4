#!/usr/bin/env bash
# many-sizes.sh DIR NAME K [SCALES]: a top directory at DIR (links to this
# checkout) whose one workload NAME is this folder's fast sq workload with
# one data task and K sizes of one training each (m1..mK, one task, fp32,
# gpu cpu): the many tiny jobs of t-slurm-limits and of bench/*.sh.
# SCALES (default "1"; "1, 2": two trainings a size, the second of two
# ranks) gives each size more trainings and one report for them all.
set -eu
d=$1 name=$2 k=$3 scales=${4:-1}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
mkdir -p "$d/workloads/$name" "$d/pipelines"
for f in GNUmakefile generator scripts templates tests; do ln -sfn "$top/$f" "$d/$f"; done
cp "$top/pipelines/benchmark.yaml" "$d/pipelines/"
cp "$top/workloads/gpus.yaml" "$d/workloads/"
cp "$here/train.sh" "$here/data.sh" "$d/workloads/$name/"
sed -e "s/^workload: sq/workload: $name/" -e '/^models:/,$d' "$here/sq.yaml" >"$d/workloads/$name.yaml"
{
	echo "models:"
	for ((i = 1; i <= k; i++)); do echo "  m$i: {layers: 1}"; done
	echo "measure: {window: [1, 3], steps: 5}"
	echo "train:"
	echo "  cmd: [\"bash\", \"{recipe_dir}/train.sh\", \"{steps}\", \"{install}\"]"
	echo "configs:"
	for ((i = 1; i <= k; i++)); do
		echo "  - {gpu: cpu, size: m$i, dtype: fp32, scales: [$scales], params: {seq: 8, gbs: 2}}"
	done
} >>"$d/workloads/$name.yaml"
