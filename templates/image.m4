m4_include(common.m4)m4_dnl
LLMB_PRELUDE
# Imported under a temporary name and renamed only when complete and
# verified, so an interrupted import never counts as done.
out=LLMB_OUT
tmp="$out.partial.$LLMB_JOB_ID"
rm -f "$tmp"
mkdir -p "$(dirname "$out")"
${LLMB_ENROOT:-enroot} import -o "$tmp" -a LLMB_ARCH LLMB_URI
# A squashfs file starts with the magic "hsqs" and records its size at byte 40.
magic=$(head -c 4 "$tmp" | od -An -c | tr -d ' ')
[ "$magic" = hsqs ] || { echo "llmb: $tmp is not a squashfs image" >&2; exit 3; }
want=$(od -An -t u8 -j 40 -N 8 "$tmp" | tr -d ' ')
have=$(stat -c %s "$tmp")
[ "$have" -ge "$want" ] || { echo "llmb: $tmp is truncated ($have of $want bytes)" >&2; exit 3; }
mv -f "$tmp" "$out"
echo "llmb: imported LLMB_URI into $out ($have bytes)"
