package jcp_test

import (
	"context"
	"fmt"

	"github.com/openjibo/jibod/jcp"
)

// printVoice "speaks" by printing.
type printVoice struct{}

func (printVoice) Say(_ context.Context, text string) error {
	fmt.Println("say:", text)
	return nil
}

func ExampleParseAction() {
	a, err := jcp.ParseAction([]byte(`{"type":"JCP","config":{"version":"2.0","jcp":
		{"id":"q1","type":"SLIM","config":{
			"play":{"id":"p1","type":"PLAY","esml":"<speak>Would you like a joke?</speak>"},
			"listen":{"id":"l1","type":"LISTEN","contexts":["shared/yes_no"]}}}}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	s := a.Behavior.(*jcp.SLIM)
	fmt.Println(s.BehaviorType(), s.ID, s.Listen.Contexts)

	_, err = jcp.ParseAction([]byte(`{"config":{"jcp":{"id":"x","type":"SEQUENCE","children":[]}}}`))
	fmt.Println(err)
	// Output:
	// SLIM q1 [shared/yes_no]
	// parse JCP action: config.jcp.children: must not be empty
}

func ExampleExecutor_Run() {
	ex, err := jcp.NewExecutor(jcp.ExecutorConfig{Voice: printVoice{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	action := jcp.NewAction(jcp.Sequence(
		jcp.Say("Hello &amp; welcome."),
		jcp.Question("<speak><es cat='happy'>Shall we play a game?</es></speak>", "games/yes_no"),
	))
	res, err := ex.Run(context.Background(), action)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Status, res.Listen.Contexts)
	// Output:
	// say: Hello & welcome.
	// say: Shall we play a game?
	// succeeded [games/yes_no]
}

func ExampleParseESML() {
	doc, err := jcp.ParseESML("<speak>Hi there! <break size='0.5'/><anim name='wave' nonBlocking='true'/> Nice to meet you.</speak>")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q\n", doc.Text)
	for _, t := range doc.Tags {
		fmt.Println(t.Name, "at", t.Start)
	}
	for _, s := range doc.Segments() {
		fmt.Printf("%q then %v\n", s.Text, s.Pause)
	}
	// Output:
	// "Hi there! Nice to meet you."
	// break at 9
	// anim at 9
	// "Hi there!" then 500ms
	// "Nice to meet you." then 0s
}
