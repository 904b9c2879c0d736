// Package scripts_test checks the fixed-seed parts of the set generators
// in scripts/.
package scripts_test

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// draw runs scripts/draw.awk as gen-hearing-devset.sh does.
func draw(t *testing.T, seed, n int, ranges string) ([]int, error) {
	t.Helper()
	out, err := exec.Command("awk", "-v", "seed="+strconv.Itoa(seed), "-v", "n="+strconv.Itoa(n),
		"-v", "ranges="+ranges, "-f", "draw.awk").CombinedOutput()
	if err != nil {
		return nil, err
	}
	var vals []int
	for _, f := range strings.Fields(string(out)) {
		v, err := strconv.Atoi(f)
		require.NoError(t, err, "draw.awk printed %q", out)
		vals = append(vals, v)
	}
	return vals, nil
}

func needAwk(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("awk"); err != nil {
		t.Skip("awk is not installed")
	}
}

// TestDrawGivesOddValuesInRange: each file's room is odd integers inside
// the ranges asked for (the development set's rooms are all even), the
// same for the same seed and file.
func TestDrawGivesOddValuesInRange(t *testing.T) {
	needAwk(t)
	tests := []struct {
		seed   int
		ranges string
	}{
		{seed: 311, ranges: "31 79 21 79 41 99 1 19"},
		{seed: 733, ranges: "61 95 41 79 71 99 5 25 2501 3499"},
	}
	for _, tc := range tests {
		t.Run(strconv.Itoa(tc.seed), func(t *testing.T) {
			bounds := strings.Fields(tc.ranges)
			for n := 1; n <= 12; n++ {
				vals, err := draw(t, tc.seed, n, tc.ranges)
				require.NoError(t, err)
				require.Len(t, vals, len(bounds)/2)
				for i, v := range vals {
					lo, _ := strconv.Atoi(bounds[2*i])
					hi, _ := strconv.Atoi(bounds[2*i+1])
					assert.Equal(t, 1, v%2, "file %d value %d is odd", n, i)
					assert.GreaterOrEqual(t, v, lo, "file %d value %d", n, i)
					assert.LessOrEqual(t, v, hi, "file %d value %d", n, i)
				}
				again, err := draw(t, tc.seed, n, tc.ranges)
				require.NoError(t, err)
				assert.Equal(t, vals, again, "the same seed and file draw the same room")
			}
		})
	}
}

// TestDrawDoesNotFollowTheSeed: a Park–Miller stream's first value is
// the seed times 16807, so drawn from it every small seed's first room
// would sit at the bottom of its ranges. The first file's rooms over many
// small seeds spread over the range like any others.
func TestDrawDoesNotFollowTheSeed(t *testing.T) {
	needAwk(t)
	const seeds = 30
	low := 0
	seen := map[int]bool{}
	for seed := 1; seed <= seeds; seed++ {
		vals, err := draw(t, seed, 1, "1 99")
		require.NoError(t, err)
		require.Len(t, vals, 1)
		seen[vals[0]] = true
		if vals[0] < 21 { // the range's lowest fifth
			low++
		}
	}
	assert.Less(t, low, seeds/3, "the first rooms of small seeds are not all at the bottom of the range")
	assert.Greater(t, len(seen), seeds/3, "the first rooms of small seeds differ")
}

func TestDrawRejectsABadCall(t *testing.T) {
	needAwk(t)
	for _, tc := range []struct {
		name   string
		n      int
		ranges string
	}{
		{name: "file 0 would draw the seed's own value", n: 0, ranges: "1 99"},
		{name: "a range without its top", n: 1, ranges: "1 99 5"},
		{name: "no ranges", n: 1, ranges: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := draw(t, 311, tc.n, tc.ranges)
			assert.Error(t, err)
		})
	}
}
