#!/usr/bin/env bash
# tools/relayout.sh: issue 12's folder move, one layer per folder under
# support/. Moves each support/<name>.{h,cc} (and support/wrk/pace.lua) with
# `git mv`, then rewrites every "support/<name>.h|.cc" path (includes,
# comments, docs) to "support/<layer>/<name>...". Nothing else.
#
# Re-runnable: files already moved are skipped and rewritten paths no longer
# match. After merging a branch made in the old flat layout, run it again to
# move any file the branch added under an old path and to rewrite the include
# paths its edits introduced.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"

declare -A LAYER=(
  # core/: result/error, Config, run metadata, result models, units, JSON
  [result]=core [config]=core [run_meta]=core [load_result]=core
  [outcomes]=core [plausible]=core [scenario_time]=core
  [scenario_result]=core [units_format]=core [json_fields]=core [json_writer]=core
  # host/: the Host contract and its implementations, ssh target, quoting, interrupts
  [host]=host [local_host]=host [ssh_host]=host [dry_run_host]=host
  [ssh_target]=host [shell_quote]=host [interrupts]=host
  [ssh_time]=host [known_hosts_markers]=host
  # engine/: the LoadEngine contract, k6 and wrk, their output parsers, JWT
  [load_engine]=engine [k6_engine]=engine [wrk_engine]=engine
  [k6_summary]=engine [wrk_output]=engine [jwt]=engine
  # sut/: provisioning, SUT services, nginx configuration
  [provision]=sut [sut_services]=sut [nginx_conf]=sut [nginx_files]=sut
  [os_release]=sut [os_packages]=sut [vendor_repos]=sut [k6_archive]=sut
  # judge/: pure verdicts: thresholds, validity, search, repeats, ratios, A/B, reference
  [thresholds]=judge [validity]=judge [throughput_search]=judge [step_search]=judge
  [repeats]=judge [ratios]=judge [verdict]=judge [ab_compare]=judge [reference]=judge
  # run/: testbed, phase monitor, scenario plans and flows, progress
  [testbed]=run [phase_monitor]=run [scenario_runner]=run [scenario_plan]=run
  [progress]=run [progress_ticker]=run
  # report/: table, report.md, results.json, SVG plots, baselines
  [summary_table]=report [markdown_report]=report [results_io]=report
  [ab_report]=report [svg_plot]=report [baseline]=report [markdown_text]=report
)

sed_script=$(mktemp)
trap 'rm -f "$sed_script"' EXIT
for name in "${!LAYER[@]}"; do
  layer=${LAYER[$name]}
  for ext in h cc; do
    if [[ -e support/$name.$ext ]]; then
      mkdir -p "support/$layer"
      git mv "support/$name.$ext" "support/$layer/$name.$ext"
    fi
  done
  echo "s#\\bsupport/$name\\.(h|cc)\\b#support/$layer/$name.\\1#g" >>"$sed_script"
done
if [[ -e support/wrk/pace.lua ]]; then
  git mv support/wrk/pace.lua support/engine/pace.lua
fi
# pace.lua's folder (the wrk engine's scripts dir), then the library's source glob.
echo 's#\bsupport/wrk\b#support/engine#g' >>"$sed_script"
echo 's#\{PROJECT_SOURCE_DIR\}/support/\*\.cc#{PROJECT_SOURCE_DIR}/support/*/*.cc#g' >>"$sed_script"

# Every tracked text file that names a support/ path, except recorded outputs
# and goldens (byte-identical by contract; they name none today).
git grep -lI 'support/' -- . ':!fixtures/report' ':!fixtures/golden' ':!tools/relayout.sh' |
  while IFS= read -r f; do sed -i -E -f "$sed_script" "$f"; done

# A C++ file this table does not know (added on a flat-layout branch) stays
# where it is and is built by nothing: name it so it gets a layer.
for f in support/*.h support/*.cc; do
  [[ -e $f ]] && echo "relayout.sh: $f has no layer in the table above; add it and re-run" >&2
done
exit 0
