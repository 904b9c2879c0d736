#!/usr/bin/env bash
# Fails when a built binary is over its size limit in bytes (docs/size.md).
# Usage: scripts/sizecheck.sh LIMIT BINARY...
set -euo pipefail
limit=$1
shift
status=0
for bin in "$@"; do
	size=$(stat -c %s "$bin")
	if [ "$size" -gt "$limit" ]; then
		echo "sizecheck: $bin is $size bytes, over the limit of $limit (docs/size.md; scripts/binsize.sh shows where the bytes go)" >&2
		status=1
	else
		echo "sizecheck: $bin is $size bytes (limit $limit)"
	fi
done
exit $status
