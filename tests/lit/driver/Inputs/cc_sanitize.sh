#!/bin/sh
# cc for the README's commands in a sanitizer build (tests/lit/driver/
# embed.test): the installed runtime is instrumented, so every program
# links the sanitizer runtime ($KDSL_TEST_SANITIZE), which cannot be
# linked statically; there `-static` is dropped and the --static flags
# link as usual (the unsanitized build runs the static links as written).
n=$#
while [ "$n" -gt 0 ]; do
	a=$1
	shift
	n=$((n - 1))
	[ "$a" = -static ] || set -- "$@" "$a"
done
exec gcc "$@" $KDSL_TEST_SANITIZE
