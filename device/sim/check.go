package sim

import (
	"context"
	"fmt"
	"sync"

	"github.com/openjibo/jibod/device"
)

// check is every sim device's Check: a done context fails first, then a
// closed device (closed is read under mu, which guards it). who names the
// device in the error, e.g. "sim led ring".
func check(ctx context.Context, who string, mu *sync.Mutex, closed *bool) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: check: %w", who, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if *closed {
		return fmt.Errorf("%s: check: %w", who, device.ErrClosed)
	}
	return nil
}
