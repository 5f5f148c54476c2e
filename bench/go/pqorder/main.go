// Command pqorder is the Go peer of test/runtime/workqueue/priority-queue-parity.test.ts: it runs a script of queue
// operations through controller-runtime's priority queue (pkg/controller/priorityqueue) and prints the order in which
// the queue hands items out, so the test can run the same script through ours and compare.
//
// The script is a JSON array on standard input, one step each:
//
//	{"add": "key", "priority": 0}   AddWithOpts with that priority (0 when left out)
//	{"take": 3}                     GetWithPriority that many times, each item marked Done at once
//	{"drain": true}                 the same until nothing is ready
//
// Prints one JSON array of {"key","priority"}, in hand-out order.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

type step struct {
	Add      *string `json:"add"`
	Priority int     `json:"priority"`
	Take     int     `json:"take"`
	Drain    bool    `json:"drain"`
}

type handedOut struct {
	Key      string `json:"key"`
	Priority int    `json:"priority"`
}

func main() {
	var steps []step
	if err := json.NewDecoder(os.Stdin).Decode(&steps); err != nil {
		fmt.Fprintln(os.Stderr, "pqorder: the script on stdin is not a JSON array of steps:", err)
		os.Exit(2)
	}
	q := priorityqueue.New[string]("pqorder")
	defer q.ShutDown()
	out := []handedOut{}
	for _, s := range steps {
		if s.Add != nil {
			p := s.Priority
			q.AddWithOpts(priorityqueue.AddOpts{Priority: &p}, *s.Add)
		}
		for i := 0; i < s.Take || (s.Drain && q.Len() > 0); i++ {
			key, priority, _ := q.GetWithPriority()
			out = append(out, handedOut{Key: key, Priority: priority})
			q.Done(key)
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "pqorder:", err)
		os.Exit(1)
	}
}
