// Package skilltool holds the skill tools `jibod skills` runs: listing
// the robot's skills and their recent calls ([List], [Runs]), drawing a
// graph skill ([Graph]), installing and uninstalling WebAssembly skill
// packages ([Installer]) and opening a skill to try turn by turn
// ([OpenTry]). The robot's parts they need (its built-in skills, its
// intent stack, the way to reach a running jibod) are handed to them.
package skilltool
