package registry_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/jcp"
	"github.com/openjibo/jibod/motion"
)

func Example() {
	m, err := registry.ParseManifest([]byte(`{
	  "id": "jibo/clock", "version": "1.0.0", "name": "Clock",
	  "description": "Tells the time and the date.",
	  "permissions": ["speech"], "safety_level": "low",
	  "idempotent_intents": ["time_now", "date_today"]
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	r := registry.New()
	if err := r.Add(m); err != nil {
		fmt.Println(err)
		return
	}

	// A request holds a lease on its skill while it runs.
	lease, err := r.Acquire("jibo.clock") // the bus id works too
	if err != nil {
		fmt.Println(err)
		return
	}
	defer lease.Release()

	lib, _ := motion.Builtin()
	gate := registry.Gate{Animations: lib}
	say := jcp.NewAction(jcp.Say("It is <anim name='nod'>noon</anim>."))
	err = gate.Check(lease.Manifest(), say)
	fmt.Println(errors.Is(err, registry.ErrDenied))
	var d *registry.DeniedError
	if errors.As(err, &d) {
		fmt.Println(d.Permission, d.Path)
	}
	fmt.Println(gate.Check(lease.Manifest(), jcp.NewAction(jcp.Say("It is noon."))))
	// Output:
	// true
	// motion config.jcp.config.play.esml
	// <nil>
}

func ExampleParseManifest_error() {
	_, err := registry.ParseManifest([]byte(`{"id": "jibo/dance", "version": "1.0.0", "name": "Dance",
	  "description": "Dances.", "permissions": ["motion"], "safety_level": "low"}`))
	fmt.Println(err)
	_, err = registry.ParseManifest([]byte(`{"id": "jibo/dance", "limits": {"max_cpu": 5}}`))
	fmt.Println(err)
	// Output:
	// invalid manifest: safety_level: "low" is below "moderate", which the permissions and side effects imply
	// invalid manifest: limits.max_cpu: unknown member (known: max_action_bytes, max_behaviors, max_speech_chars, calls_per_minute, memory_mib)
}

func ExampleRegistry_Remove() {
	r := registry.New()
	m := &registry.Manifest{ID: "jibo/clock", Version: "1.0.0", Name: "Clock", Description: "Tells the time.",
		Permissions: []registry.Permission{registry.PermSpeech}, SafetyLevel: registry.SafetyLow}
	_ = r.Add(m)
	lease, _ := r.Acquire("jibo/clock")

	// The skill is in use: Remove waits for the lease, here at most until ctx ends.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fmt.Println(r.Remove(ctx, "jibo/clock"))

	lease.Release()
	fmt.Println(r.Remove(context.Background(), "jibo/clock"))
	// Output:
	// removing skill jibo/clock: 1 requests still in flight: context canceled
	// <nil>
}
