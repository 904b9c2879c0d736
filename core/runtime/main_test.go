package runtime

import (
	"os"
	"testing"

	"github.com/openjibo/jibod/motion"
)

// TestMain lets the test binary be the motion control loop's own process
// for the robots the tests start with LoopProcess: it is started again
// with motion.ProcessEnv set.
func TestMain(m *testing.M) {
	if motion.IsProcess() {
		os.Exit(ServeLoopProcess())
	}
	os.Exit(m.Run())
}
