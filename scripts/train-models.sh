#!/usr/bin/env bash
# Trains the checkpoints shipped in checkpoints/ (what `--scheduler=drl` loads by default):
#  - one per topology of the seed paper's Table 2, and for Jellyfish one per seed 1..5 (the
#    table averages those seeds; one policy imitating five different teachers did worse), named
#    by GetDrlModelName (21 in all);
#  - general.pt, which `drl` loads on any topology without a checkpoint of its own and
#    allreduce-table evaluates on every topology (its notes), trained on a family of 18: BCube,
#    DCell, fat-tree k=4, Jellyfish with 1-4 servers per switch at several sizes and random
#    graphs (seeds the paper's rows and the tests do not use), so that it carries over to
#    switch-centric graphs nobody designed;
#  - with aggregating switches (doc/allreduce.rst, "Aggregation in the network"): one per
#    Jellyfish size and seed and for fat-tree k=4, with every switch aggregating (ina=all) and
#    with half of them (ina=0.5), named by their topologies (32 in all).
# Two trainings run at a time (each with a thread per core; any number of threads gives the
# same weights). Logs, curves and full runs go to
# results/train/NAME/; the chosen policy.pt of each is copied to checkpoints/NAME.pt.
#
#   bash scripts/train-models.sh [all|server-only|aggregation|general]   (all by default;
#                                                   ITERATIONS=6 SEED=1 by default)
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$repo/build}
iterations=${ITERATIONS:-6}
seed=${SEED:-1}
out=$repo/results/train
bash "$repo/scripts/build.sh" --target allreduce-train
mkdir -p "$out" "$repo/checkpoints"

which=${1:-all}
case $which in
  all|server-only|aggregation|general) ;;
  *) echo "train-models.sh: unknown set '$which'; use all, server-only, aggregation or general" >&2
     exit 2 ;;
esac

# Longest first, so that the two at a time end together.
jobs_list=()
if [ "$which" = all ] || [ "$which" = aggregation ]; then
  for switches in 20 15 10; do
    for share in all 0.5; do
      for s in 1 2 3 4 5; do
        jobs_list+=("jellyfish-switches-$switches-degree-4-servers-1-seed-$s-ina-${share/./-}|jellyfish:switches=$switches,degree=4,servers=1,seed=$s,ina=$share")
      done
    done
  done
  jobs_list+=("fattree-k-4-ina-all|fattree:k=4,ina=all" "fattree-k-4-ina-0-5|fattree:k=4,ina=0.5")
fi
if [ "$which" != aggregation ]; then
  general="bcube:n=3,k=1;bcube:n=4,k=1;bcube:n=2,k=2;dcell:n=3,k=1;dcell:n=4,k=1;fattree:k=4"
  general+=";jellyfish:switches=10,degree=4,servers=1,seed=11"
  general+=";jellyfish:switches=10,degree=4,servers=1,seed=12"
  general+=";jellyfish:switches=15,degree=4,servers=1,seed=13"
  general+=";jellyfish:switches=12,degree=3,servers=1,seed=14"
  general+=";jellyfish:switches=8,degree=3,servers=2,seed=15"
  general+=";jellyfish:switches=6,degree=3,servers=3,seed=16"
  general+=";jellyfish:switches=5,degree=2,servers=4,seed=17"
  general+=";jellyfish:switches=10,degree=4,servers=2,seed=18"
  general+=";random:switches=10,links=16,servers=12,seed=21"
  general+=";random:switches=8,links=12,servers=16,seed=22"
  general+=";random:switches=14,links=20,servers=14,seed=23"
  general+=";random:switches=6,links=9,servers=12,seed=24"
  jobs_list+=("general|$general")
fi
# The server-only Jellyfish checkpoints imitate the flat-tree search (the trainer's flat-tree
# teacher, doc/allreduce.rst, "The hierarchical DRL scheduler"), all but one. Per instance the
# recipe below is the one whose checkpoint decoded the fewest rounds on it among the candidates
# the manual lists ("Imitating the exact search": taught, taught with corrections at trainer
# seed SEED or SEED + 1, plain); of equal ones, with corrections (seed SEED first), then
# taught, then plain. Each entry is SEED-OFFSET|OPTIONS.
taught="--flat-teacher-moves=2000000 --imitation-steps=2000 --imitation-eval-every=20"
corrected="$taught --imitation-correct-every=100"
declare -A jellyfish_recipe=(
  [10-1]="0|$corrected" [10-2]="0|$taught" [10-3]="0|$taught" [10-4]="0|$taught"
  [10-5]="0|$corrected"
  [15-1]="0|$corrected" [15-2]="0|$corrected" [15-3]="0|$corrected" [15-4]="0|$corrected"
  [15-5]="1|$corrected"
  [20-1]="0|$corrected" [20-2]="0|" [20-3]="0|$corrected" [20-4]="0|$corrected"
  [20-5]="0|$corrected"
)
jellyfish_jobs() {
  local switches=$1 s
  for s in 1 2 3 4 5; do
    jobs_list+=("jellyfish-switches-$switches-degree-4-servers-1-seed-$s|jellyfish:switches=$switches,degree=4,servers=1,seed=$s|${jellyfish_recipe[$switches-$s]}")
  done
}
if [ "$which" = all ] || [ "$which" = server-only ]; then
  jobs_list+=("dcell-n-6-k-1|dcell:n=6,k=1" "dcell-n-5-k-1|dcell:n=5,k=1")
  jellyfish_jobs 20
  jellyfish_jobs 15
  jobs_list+=("bcube-n-5-k-1|bcube:n=5,k=1" "dcell-n-4-k-1|dcell:n=4,k=1")
  jellyfish_jobs 10
  jobs_list+=("bcube-n-4-k-1|bcube:n=4,k=1" "bcube-n-3-k-1|bcube:n=3,k=1")
fi

# One job: NAME|SPECS, or NAME|SPECS|SEED-OFFSET|OPTIONS (the Jellyfish recipes above).
train_one() {
  local name specs offset options
  IFS='|' read -r name specs offset options <<< "$1"
  rm -rf "${out:?}/$name" # a new run does not overwrite an old one: start from nothing
  # shellcheck disable=SC2086 # options are words
  "$build/examples/allreduce-train" --topology="$specs" --iterations="$iterations" \
    --seed="$((seed + ${offset:-0}))" --out="$out/$name" $options > "$out/$name.log" 2>&1
  cp "$out/$name/policy.pt" "$repo/checkpoints/$name.pt"
  echo "$name: $(grep -c '^iter' "$out/$name.log") iterations, $(tail -n 3 "$out/$name.log" | grep '^policy' | sed 's/.*(//; s/)//')"
}
export -f train_one
export build out iterations seed repo

start=$(date +%s)
printf '%s\n' "${jobs_list[@]}" | xargs -P 2 -I{} bash -c 'train_one "$@"' _ {}
echo "trained ${#jobs_list[@]} checkpoints in $(( $(date +%s) - start )) s"
