package volume

import "strings"

// maxStep bounds a relative change in levels.
const maxStep = 3

// Relative reads a change of volume said instead of a level ("down a bit",
// "lower", "up a lot", "a little louder") as the number of levels to move:
// negative is quieter. It returns false when the text names no direction.
func Relative(text string) (int, bool) {
	if len(text) > maxLevelText {
		return 0, false
	}
	dir, step := 0, 1
	for _, w := range strings.Fields(strings.ToLower(text)) {
		switch strings.Trim(w, ".,!?") {
		case "down", "lower", "quieter", "softer", "less", "decrease", "reduce":
			dir = -1
		case "up", "higher", "louder", "more", "increase", "raise":
			dir = 1
		case "lot", "much", "way", "lots":
			step = maxStep
		}
	}
	return dir * step, dir != 0
}
