package board_test

import (
	"context"
	"fmt"

	"github.com/openjibo/jibod/board"
	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/jcp"
)

func ExampleOpen() {
	p, err := board.Load("sim")
	if err != nil {
		fmt.Println(err)
		return
	}
	p.Speaker.WPM = 0 // speak instantly for the example
	body, err := board.Open(context.Background(), p, board.Options{
		Observer: func(e device.Event) { fmt.Println(e.Device, e.Kind, e.Values) },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer body.Close()

	for _, r := range body.Check(context.Background()) {
		fmt.Println(r.Device, r.OK)
	}

	ex, err := jcp.NewExecutor(body.ExecutorConfig())
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := ex.Run(context.Background(), jcp.NewAction(jcp.Say("Hi!"))); err != nil {
		fmt.Println(err)
	}
	// Output:
	// speaker true
	// audio true
	// display true
	// led true
	// motor-power true
	// motor.bottomSection_r true
	// motor.middleSection_r true
	// motor.topSection_r true
	// led set map[color:#00aaff]
	// speaker say map[text:Hi!]
	// speaker done map[text:Hi!]
	// led set map[color:#000000]
}
