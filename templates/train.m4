m4_include(common.m4)m4_dnl
LLMB_PRELUDE
LLMB_LAUNCHER
LLMB_PROBE
mkdir -p LLMB_WORKDIR
cd LLMB_WORKDIR
llmb_launch LLMB_CMD
echo "llmb: training finished"
