package diag

import (
	"fmt"
	"strings"
)

// errNoPeople is the people command's answer on a robot without a loop.
var errNoPeople = missing("loop")

// peopleHelp is `help people`.
const peopleHelp = "Lists the people the robot knows (its loop), in the order they were added: id, name, and * for the owner. " +
	"It only reads: people are added and removed with `jibod people add|remove|owner` on the robot, which the running robot sees within seconds. " +
	"A loop file that cannot be read is reported here, with the people of its last good version."

func cmdPeople(c *call) error {
	l := c.srv.env.People
	if l == nil {
		return errNoPeople
	}
	if len(c.args) > 0 {
		return fmt.Errorf("%s takes no arguments: the shell only reads the loop; `jibod people add|remove|owner` on the robot changes it", c.name)
	}
	members, problem := l.Members()
	if members == nil {
		members = []Person{} // JSON: [] rather than null
	}
	if c.json {
		out := map[string]any{"members": members}
		if problem != nil {
			out["error"] = problem.Error()
		}
		return c.emit(out)
	}
	if problem != nil {
		if err := c.printf("loop file problem: %s\n", problem); err != nil {
			return err
		}
	}
	if len(members) == 0 {
		return c.printf("nobody in the loop (`jibod people add --first NAME` on the robot adds someone)\n")
	}
	rows := [][]string{{"ID", "NAME", "OWNER"}}
	for _, m := range members {
		mark := ""
		if m.Owner {
			mark = "*"
		}
		rows = append(rows, []string{m.ID, strings.TrimSpace(m.FirstName + " " + m.LastName), mark})
	}
	return c.table(rows)
}
