// A client-go baseline for kubescaffold's benchmarks (bench/informer-sync.js, bench/workqueue.js).
//
//	clientgo sync -kubeconfig F -group G -version V -resource R [-namespace NS]
//	    runs one dynamic SharedIndexInformer to sync and prints {"objects","syncMs","heapBytes"} as JSON.
//	clientgo workqueue [-keys 1000] [-rounds 2000]
//	    single goroutine add (twice, to hit dedupe) + get + done on distinct keys; prints {"opsPerSec"}.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/workqueue"
)

func heap() uint64 {
	runtime.GC()
	debug.FreeOSMemory()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func syncBench(args []string) error {
	fs := flag.NewFlagSet("sync", flag.ExitOnError)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig file")
	group := fs.String("group", "", "API group")
	version := fs.String("version", "v1", "API version")
	resource := fs.String("resource", "", "plural resource name")
	namespace := fs.String("namespace", "", "namespace ('' for all)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		return err
	}
	// controller-runtime turns client-side throttling off; do the same so the list is not rate limited.
	cfg.QPS = -1
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	gvr := schema.GroupVersionResource{Group: *group, Version: *version, Resource: *resource}
	before := heap()
	start := time.Now()
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(client, 0, *namespace, nil)
	informer := factory.ForResource(gvr).Informer()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		return fmt.Errorf("cache did not sync")
	}
	elapsed := time.Since(start)
	after := heap()
	objects := len(informer.GetStore().ListKeys())
	out, _ := json.Marshal(map[string]any{"objects": objects, "syncMs": float64(elapsed.Microseconds()) / 1000, "heapBytes": int64(after) - int64(before)})
	fmt.Println(string(out))
	return nil
}

func workqueueBench(args []string) error {
	fs := flag.NewFlagSet("workqueue", flag.ExitOnError)
	nkeys := fs.Int("keys", 1000, "distinct keys")
	rounds := fs.Int("rounds", 2000, "rounds over all keys")
	if err := fs.Parse(args); err != nil {
		return err
	}
	keys := make([]string, *nkeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("ns/obj-%d", i)
	}
	q := workqueue.NewTyped[string]()
	defer q.ShutDown()
	run := func() time.Duration {
		start := time.Now()
		for r := 0; r < *rounds; r++ {
			for _, k := range keys {
				q.Add(k)
				q.Add(k)
			}
			for range keys {
				k, _ := q.Get()
				q.Done(k)
			}
		}
		return time.Since(start)
	}
	run() // warm-up
	d := run()
	out, _ := json.Marshal(map[string]any{"opsPerSec": float64(*rounds**nkeys) / d.Seconds()})
	fmt.Println(string(out))
	return nil
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: clientgo sync|workqueue [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "sync":
		err = syncBench(os.Args[2:])
	case "workqueue":
		err = workqueueBench(os.Args[2:])
	default:
		err = fmt.Errorf("unknown mode %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
