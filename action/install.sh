#!/bin/sh
# Installs rye for the GitHub Action (action.yml): for a release, downloads
# the archive of the runner's platform, checks it, and unpacks rye; for any
# other ref, builds rye from the action's own source with the ref as its
# version. docs/ci.md#how-the-action-installs-rye explains it.
#
#   install.sh plan           prints mode=download|build and version=...
#   install.sh install DIR    puts rye (rye.exe on Windows) into DIR and
#                             prints rye=DIR/rye
#
# A download is checked before anything of it runs:
#   1. the SSH signature of the release's checksums file, with
#      ssh-keygen -Y verify against internal/releasesig/allowed_signers of
#      this action's own folder (the repository at the ref the workflow
#      pinned), never a key that comes with the release;
#   2. the SHA-256 of the archive against its line in that file;
#   3. rye --version of the unpacked binary names the version asked for.
# Any failure stops with exit 1 and leaves nothing in DIR.
#
# Environment (action.yml sets the first three):
#   RYE_ACTION_REF    the ref the workflow named the action by (github.action_ref)
#   RYE_VERSION       a release to download (vX.Y.Z); needed when the action
#                     is pinned by commit, since a commit does not say which
#                     release it is
#   RYE_COMMIT        the commit, for a build from source (optional)
#   RYE_ACTION_PATH   the action's folder (default: the one above this script)
#   RYE_RELEASES_URL  default https://github.com/ryekit/rye/releases/download
#   RYE_OS, RYE_ARCH  the platform (default: from uname)
#
# POSIX sh, and what GitHub's runners have: curl, ssh-keygen, sha256sum or
# shasum, tar or unzip; go only for a build from source.
set -eu

die() {
	printf '::error title=rye install::%s\n' "$*" >&2
	exit 1
}

log() { printf '%s\n' "$*" >&2; }

action_path=${RYE_ACTION_PATH:-$(cd "$(dirname "$0")/.." && pwd)}
signers=$action_path/internal/releasesig/allowed_signers
releases_url=${RYE_RELEASES_URL:-https://github.com/ryekit/rye/releases/download}

# is_release VERSION: a release tag, vMAJOR.MINOR.PATCH[-PRERELEASE].
is_release() {
	printf '%s\n' "$1" | grep -Eqx 'v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?'
}

# plan sets mode and version.
plan() {
	ref=${RYE_ACTION_REF:-}
	if [ -n "${RYE_VERSION:-}" ]; then
		is_release "$RYE_VERSION" || die "version input '$RYE_VERSION' is not a release version (vX.Y.Z): give the tag of a rye release"
		mode=download version=$RYE_VERSION
	elif is_release "$ref"; then
		mode=download version=$ref
	elif [ -n "$ref" ]; then
		# A branch or commit: its name is the version, in the characters
		# a version may hold (-ldflags would split at a quote).
		mode=build version=$(printf '%s' "$ref" | tr -c 'A-Za-z0-9._/+-' '-')
	else
		# uses: ./ (the action from the workflow's own checkout): no ref.
		mode=build version=unreleased
	fi
}

platform() {
	os=${RYE_OS:-}
	if [ -z "$os" ]; then
		case $(uname -s) in
		Linux) os=linux ;;
		Darwin) os=darwin ;;
		MINGW* | MSYS* | CYGWIN* | Windows_NT) os=windows ;;
		*) die "no rye release for this system ($(uname -s))" ;;
		esac
	fi
	arch=${RYE_ARCH:-}
	if [ -z "$arch" ]; then
		case $(uname -m) in
		x86_64 | amd64) arch=amd64 ;;
		aarch64 | arm64) arch=arm64 ;;
		*) die "no rye release for this processor ($(uname -m))" ;;
		esac
	fi
	exe=
	ext=tar.gz
	if [ "$os" = windows ]; then exe=.exe ext=zip; fi
}

sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	else
		shasum -a 256 "$1" | cut -d' ' -f1
	fi
}

fetch() {
	curl --fail --silent --show-error --location --retry 3 --output "$tmp/$1" "$releases_url/$version/$1" ||
		die "could not download $releases_url/$version/$1"
}

download() {
	platform
	v=${version#v}
	archive=rye_${v}_${os}_${arch}.$ext
	sums=rye_${v}_checksums.txt
	[ -f "$signers" ] || die "$signers is missing: the action's folder is incomplete"
	fetch "$sums"
	fetch "$sums.sig"
	fetch "$archive"

	# 1. The signature, against the keys of this action's own ref.
	if ! out=$(ssh-keygen -Y verify -f "$signers" -I rye-release -n rye-release -s "$tmp/$sums.sig" <"$tmp/$sums" 2>&1); then
		die "the signature of $sums does not verify against the release keys of internal/releasesig/allowed_signers at this action's ref: $out"
	fi
	log "$sums: $out"

	# 2. The archive's checksum, from the signed file (exactly one line).
	want=$(awk -v name="$archive" '$2 == name && NF == 2 { print $1; n++ } END { if (n != 1) exit 1 }' "$tmp/$sums") ||
		die "$sums lists $archive not exactly once"
	got=$(sha256 "$tmp/$archive")
	[ "$got" = "$want" ] || die "$archive: SHA-256 $got, but the signed $sums says $want: the download was changed or damaged"
	log "$archive: sha256 $got, as signed"

	# 3. Unpack rye alone, run it, and only then put it in place.
	mkdir "$tmp/x"
	if [ "$ext" = zip ]; then
		unzip -q -o "$tmp/$archive" "rye$exe" -d "$tmp/x" || die "cannot unpack rye$exe from $archive"
	else
		tar -xzf "$tmp/$archive" -C "$tmp/x" "rye$exe" || die "cannot unpack rye$exe from $archive"
	fi
	chmod +x "$tmp/x/rye$exe"
	check_version "$tmp/x/rye$exe"
	mkdir -p "$dest"
	mv -f "$tmp/x/rye$exe" "$dest/rye$exe"
}

build() {
	platform
	command -v go >/dev/null 2>&1 || die "building rye from source (ref '$version' is not a release) needs Go"
	pkg=github.com/ryekit/rye/cmd/rye/cli
	commit=${RYE_COMMIT:-}
	if [ -z "$commit" ] && printf '%s\n' "$version" | grep -Eqx '[0-9a-f]{40}'; then commit=$version; fi
	log "building rye $version from $action_path (not a release: no binary to download)"
	mkdir -p "$tmp/x"
	# A plain go build (no -trimpath, the runner's cgo setting), so that a
	# build cache already filled by the same Go is used as it is.
	(cd "$action_path" && go build \
		-ldflags "-X $pkg.version=$version -X $pkg.commit=$commit" \
		-o "$tmp/x/rye$exe" ./cmd/rye) || die "go build failed"
	check_version "$tmp/x/rye$exe"
	mkdir -p "$dest"
	mv -f "$tmp/x/rye$exe" "$dest/rye$exe"
}

# check_version BINARY: it runs, and says it is the version asked for.
check_version() {
	out=$("$1" --version) || die "the unpacked rye does not run: $out"
	case $out in
	"rye $version "*) log "$out" ;;
	*) die "the unpacked rye says '$out', not rye $version" ;;
	esac
}

cmd=${1:-}
case $cmd in
plan)
	plan
	printf 'mode=%s\nversion=%s\n' "$mode" "$version"
	;;
install)
	[ $# -eq 2 ] || die "usage: install.sh install DIR"
	dest=$2
	plan
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	"$mode"
	printf 'rye=%s\n' "$dest/rye$exe"
	;;
*)
	die "usage: install.sh plan | install DIR"
	;;
esac
