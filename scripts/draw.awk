# draw.awk: odd integers, one in each [LO, HI] of ranges ("LO HI LO HI
# ..."), the Nth file's draws (n from 1) from one stream seeded with
# seed. The generator is a fixed one (Park and Miller's minimal standard,
# exact in awk's doubles), not awk's rand, which differs between mawk and
# gawk, so a set is the same anywhere. File n takes the stream's values
# after the first n sets of draws, so the stream's first value (the seed
# times 16807, near the bottom of every range for any small seed) is
# never drawn and the rooms do not follow the seed.
#
#   awk -v seed=SEED -v n=N -v ranges="LO HI ..." -f scripts/draw.awk
function next01() { x = x * 16807 % 2147483647; return x / 2147483647 }
BEGIN {
	k = split(ranges, r, " ")
	if (k < 2 || k % 2 != 0 || n < 1) {
		print "draw.awk: want n >= 1 and ranges of LO HI pairs" > "/dev/stderr"
		exit 1
	}
	x = seed % 2147483647; if (x < 1) x = 1
	for (i = 0; i < n * k / 2; i++) next01()
	for (i = 1; i < k; i += 2) printf "%s%d", (i > 1 ? " " : ""), r[i] + 2 * int(next01() * (int((r[i + 1] - r[i]) / 2) + 1))
	printf "\n"
}
