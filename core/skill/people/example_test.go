package people_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/openjibo/jibod/core/skill/people"
)

// A loop kept in a state folder: the first person added is the owner,
// and skills get the loop as runtime.loop.
func Example() {
	dir, _ := os.MkdirTemp("", "loop-example")
	defer os.RemoveAll(dir)
	s, err := people.Open(filepath.Join(dir, people.FileName), people.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	ann, _ := s.Add(people.Member{FirstName: "Ann", LastName: "Lee"}, false)
	_, _ = s.Add(people.Member{FirstName: "cleo", Gender: "Female"}, false)

	l := s.Loop()
	fmt.Println(len(l.Users), l.Owner == ann.ID)
	fmt.Println(l.Users[1].FirstName, l.Users[1].Gender)
	// Output:
	// 2 true
	// cleo female
}
