#!/bin/sh
# cc for the README's commands in a sanitizer build (tests/lit/driver/
# embed.test): the installed runtime is instrumented, so every program
# links the sanitizer runtime ($KDSL_TEST_SANITIZE), which cannot be
# linked statically.  There `-static` links the kdsl runtime statically
# alone (-lkdsl-runtime as -l:libkdsl-runtime.a, libc and the sanitizer
# shared); the unsanitized build runs the static links as written.
static=0
for a in "$@"; do
	[ "$a" = -static ] && static=1
done
n=$#
while [ "$n" -gt 0 ]; do
	a=$1
	shift
	n=$((n - 1))
	case "$static:$a" in
	*:-static) ;;
	1:-lkdsl-runtime) set -- "$@" -l:libkdsl-runtime.a ;;
	*) set -- "$@" "$a" ;;
	esac
done
exec gcc "$@" $KDSL_TEST_SANITIZE
