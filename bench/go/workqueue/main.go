// Command workqueue is the Go peer of bench/runtime-workqueue.js: add/get/done cycles per second through client-go's
// workqueues (plain; rate-limiting; rate-limiting and named, so it records controller-runtime's workqueue metrics as
// controller-runtime's controllers did before v0.23) and controller-runtime's priority queue (what its controllers use
// by default, metrics included), in the same patterns the script runs for ours:
//
//	batch:   one goroutine adds KEYS distinct keys, then gets and dones them all; repeated
//	dedupe:  the same, but every key is added twice (the second add is a dedupe hit)
//	workers: one producer goroutine adds keys in batches of KEYS while WORKERS goroutines get and done
//
//	workqueue [-keys 1000] [-items 2000000] [-workers 4] [-runs 5]
//
// Prints one JSON line per queue and pattern: {"queue","pattern","items","bestMs","itemsPerSec"} (best of runs).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

type queue interface {
	Add(string)
	Get() (string, bool)
	Done(string)
	ShutDown()
}

type rateLimited struct {
	workqueue.TypedRateLimitingInterface[string]
}

// Done as a controller's worker does it after a successful reconcile: Forget, then Done.
func (q rateLimited) Done(item string) {
	q.Forget(item)
	q.TypedRateLimitingInterface.Done(item)
}

var queues = []struct {
	name string
	make func() queue
}{
	{"client-go Typed", func() queue { return workqueue.NewTyped[string]() }},
	{"client-go TypedRateLimiting", func() queue {
		return rateLimited{workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())}
	}},
	{
		// controller-runtime's queue with UsePriorityQueue=false: named, so it records controller-runtime's
		// workqueue metrics (its provider is installed by importing controller-runtime).
		"client-go TypedRateLimiting + c-r metrics", func() queue {
			return rateLimited{workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
				workqueue.TypedRateLimitingQueueConfig[string]{Name: "bench"})}
		},
	},
	{"controller-runtime priorityqueue", func() queue {
		return rateLimited{priorityqueue.New[string]("bench")}
	}},
}

// onceShutDown makes ShutDown idempotent (the priority queue panics on a second call).
type onceShutDown struct {
	queue
	once sync.Once
}

func (q *onceShutDown) ShutDown() { q.once.Do(q.queue.ShutDown) }

func batch(q queue, keys []string, items int, dup bool) {
	for done := 0; done < items; done += len(keys) {
		for _, k := range keys {
			q.Add(k)
			if dup {
				q.Add(k)
			}
		}
		for range keys {
			k, _ := q.Get()
			q.Done(k)
		}
	}
}

func workers(q queue, keys []string, items, n int) {
	var handled atomic.Int64
	batchDone := make(chan struct{}, 1)
	per := int64(len(keys))
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k, shutdown := q.Get()
				if shutdown {
					return
				}
				q.Done(k)
				if handled.Add(1)%per == 0 {
					batchDone <- struct{}{}
				}
			}
		}()
	}
	// A batch is added again only once the previous one is through, so every add is a new item (no dedupe).
	for added := 0; added < items; added += len(keys) {
		for _, k := range keys {
			q.Add(k)
		}
		<-batchDone
	}
	q.ShutDown()
	wg.Wait()
}

func main() {
	nkeys := flag.Int("keys", 1000, "distinct keys")
	items := flag.Int("items", 2_000_000, "add/get/done cycles per run")
	nworkers := flag.Int("workers", 4, "consumer goroutines in the workers pattern")
	runs := flag.Int("runs", 5, "runs per measurement (best is reported)")
	flag.Parse()
	keys := make([]string, *nkeys)
	for i := range keys {
		keys[i] = "bench/thing-" + strconv.Itoa(i)
	}
	patterns := []struct {
		name string
		run  func(queue)
	}{
		{"batch", func(q queue) { batch(q, keys, *items, false) }},
		{"dedupe", func(q queue) { batch(q, keys, *items, true) }},
		{"workers", func(q queue) { workers(q, keys, *items, *nworkers) }},
	}
	for _, qd := range queues {
		for _, p := range patterns {
			best := time.Duration(0)
			for r := 0; r < *runs; r++ {
				q := &onceShutDown{queue: qd.make()}
				t := time.Now()
				p.run(q)
				d := time.Since(t)
				q.ShutDown()
				if best == 0 || d < best {
					best = d
				}
			}
			ms := float64(best.Microseconds()) / 1000
			out, _ := json.Marshal(map[string]any{
				"queue": qd.name, "pattern": p.name, "items": *items, "bestMs": ms,
				"itemsPerSec": float64(*items) / best.Seconds(),
			})
			fmt.Println(string(out))
		}
	}
}
