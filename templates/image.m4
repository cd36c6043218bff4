m4_include(common.m4)m4_dnl
LLMB_PRELUDE
# The image is imported under a temporary name and renamed only when it is
# complete and verified, so an interrupted import never counts as done.
# With a shared image folder (LLMB_IMAGE_DIR) the image lives there and
# images/ links to it. An image already in place (the shared folder, or a
# file the user put at images/<name>.sqsh) is verified and reused.
out=LLMB_OUT
store=LLMB_STORE
ref=LLMB_REF
# A squashfs image starts with the magic "hsqs"; its superblock records at
# byte 40 the bytes it uses, so a shorter file is truncated.
llmb_verify() {
	local f=$1 magic want have
	[ -s "$f" ] || { echo "llmb: $f is missing or empty" >&2; return 1; }
	magic=$(head -c 4 "$f")
	[ "$magic" = hsqs ] || { echo "llmb: $f is not a squashfs image" >&2; return 1; }
	want=$(od -An -t u8 -j 40 -N 8 "$f" | tr -d ' ')
	have=$(stat -L -c %s "$f")
	if [ -z "$want" ] || [ "$have" -lt "$want" ]; then
		echo "llmb: $f is truncated ($have of ${want:-?} bytes)" >&2
		return 1
	fi
	echo "llmb: $f verified: squashfs, $have bytes"
}
mkdir -p "$(dirname "$out")" "$(dirname "$store")"
# One import of an image at a time, also between installs sharing a folder.
exec 9>>"$store.LLMB_NAME_LOCK_EXT"
flock 9 || echo "llmb: warning: cannot lock $store.LLMB_NAME_LOCK_EXT; importing without a lock" >&2
digest=
if llmb_verify "$store" 2>/dev/null; then
	echo "llmb: using the existing image $store"
	[ ! -f "$store.LLMB_NAME_IDENTITY_EXT" ] || digest=$(sed -n 's/^digest=//p' "$store.LLMB_NAME_IDENTITY_EXT")
else
	rm -f "$store".partial.*
	tmp="$store.partial.$LLMB_JOB_ID"
	command -v "${LLMB_ENROOT:-enroot}" >/dev/null ||
		{ echo "llmb: enroot is not installed on $(hostname): importing an image needs it" >&2; exit 3; }
	${LLMB_ENROOT:-enroot} import -o "$tmp" -a LLMB_ARCH LLMB_URI 2>&1 | tee "$llmb_state/LLMB_NAME_IMPORT_LOG.$LLMB_JOB_ID.LLMB_NAME_LOG_EXT"
	llmb_verify "$tmp" || exit 3
	digest=$(grep -o 'sha256:[0-9a-f]\{64\}' "$llmb_state/LLMB_NAME_IMPORT_LOG.$LLMB_JOB_ID.LLMB_NAME_LOG_EXT" | tail -n 1 || true)
	mv -f "$tmp" "$store"
	echo "llmb: imported LLMB_URI into $store"
fi
# The image's identity, beside it: the reference, the digest when enroot
# reported one, the size.
printf 'ref=%s\ndigest=%s\nsize=%s\njob=%s\n' "$ref" "$digest" "$(stat -L -c %s "$store")" "$LLMB_JOB_ID" >"$store.LLMB_NAME_IDENTITY_EXT.tmp"
mv -f "$store.LLMB_NAME_IDENTITY_EXT.tmp" "$store.LLMB_NAME_IDENTITY_EXT"
if [ "$store" != "$out" ]; then
	ln -sfn "$store" "$out.link.$$"
	mv -Tf "$out.link.$$" "$out"
	ln -sfn "$store.LLMB_NAME_IDENTITY_EXT" "$out.LLMB_NAME_IDENTITY_EXT.link.$$"
	mv -Tf "$out.LLMB_NAME_IDENTITY_EXT.link.$$" "$out.LLMB_NAME_IDENTITY_EXT"
fi
echo "llmb: image $out ready${digest:+ ($digest)}"
