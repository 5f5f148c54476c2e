// Command informer is the client-go peer of bench/runtime-informer.js: one SharedIndexInformer over the Things of a
// namespace, timed from creation to HasSynced, with the live heap it adds (runtime.ReadMemStats after a GC).
//
//	informer -kubeconfig F -namespace NS [-mode dynamic|typed]
//
// dynamic is client-go's dynamicinformer setup (unstructured objects); typed decodes into bench/go/thing's structs,
// as a kubebuilder project's types would. Whether the reflector streamed the initial state (WatchList, client-go's
// default since 1.35) or listed it is reported from counting list calls; set KUBE_FEATURE_WatchListClient=false
// to force a LIST. Prints one JSON object on stdout.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	"kubescaffold.dev/bench/go/thing"
)

type result struct {
	Impl       string  `json:"impl"`
	Objects    int     `json:"objects"`
	SyncMs     float64 `json:"syncMs"`
	HeapBytes  int64   `json:"heapBytes"`
	ListCalls  int64   `json:"listCalls"`
	WatchCalls int64   `json:"watchCalls"`
	Initial    string  `json:"initial"`
}

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file")
	namespace := flag.String("namespace", "", "namespace to watch")
	mode := flag.String("mode", "dynamic", "dynamic or typed")
	klog.InitFlags(nil)
	flag.Parse()

	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail(err)
	}
	// No client-side throttling, as controller-runtime configures it (the server's priority and fairness applies).
	cfg.QPS = -1
	cfg.Burst = -1

	var lists, watches atomic.Int64
	before := liveHeap()
	start := time.Now()

	var lw cache.ListerWatcher
	var example kruntime.Object
	switch *mode {
	case "dynamic":
		client, err := dynamic.NewForConfig(cfg)
		if err != nil {
			fail(err)
		}
		ri := client.Resource(thing.Resource).Namespace(*namespace)
		// What dynamicinformer.NewFilteredDynamicInformer builds, with the calls counted.
		lw = cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
			ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (kruntime.Object, error) {
				lists.Add(1)
				return ri.List(ctx, o)
			},
			WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
				watches.Add(1)
				return ri.Watch(ctx, o)
			},
		}, client)
		example = &unstructured.Unstructured{}
	case "typed":
		// What a generated clientset's informer builds for a typed kind.
		lw, err = thing.ListWatch(cfg, *namespace, func(list bool) {
			if list {
				lists.Add(1)
			} else {
				watches.Add(1)
			}
		})
		if err != nil {
			fail(err)
		}
		example = &thing.Thing{}
	default:
		fail(fmt.Errorf("unknown mode %q", *mode))
	}

	informer := cache.NewSharedIndexInformer(lw, example, 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	ctx, cancel := context.WithCancel(context.Background())
	go informer.Run(ctx.Done())
	for !informer.HasSynced() {
		time.Sleep(time.Millisecond)
	}
	syncMs := float64(time.Since(start).Microseconds()) / 1000
	after := liveHeap()
	n := len(informer.GetStore().ListKeys())
	initial := "list"
	if lists.Load() == 0 {
		initial = "watchlist"
	}
	out, _ := json.Marshal(result{
		Impl: "client-go " + *mode, Objects: n, SyncMs: syncMs, HeapBytes: int64(after) - int64(before),
		ListCalls: lists.Load(), WatchCalls: watches.Load(), Initial: initial,
	})
	fmt.Println(string(out))
	cancel()
}
