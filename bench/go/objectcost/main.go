// Command objectcost is the client-go peer of bench/cache-object-cost.js: one typed informer over one resource of a
// namespace, as a client-go operator builds it (a SharedInformerFactory for built-in kinds, bench/go/thing's structs
// for the custom kind), held until stdin closes so that its RSS can be read from outside.
//
//	objectcost -kubeconfig F -namespace NS -resource configmaps|secrets|deployments|things
//
// After HasSynced it collects garbage twice (as the Node peer does) and prints one JSON line with the object count and
// the live heap; the parent then reads /proc/<pid>/status.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"kubescaffold.dev/bench/go/thing"
)

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

func thingInformer(cfg *rest.Config, namespace string) cache.SharedIndexInformer {
	lw, err := thing.ListWatch(cfg, namespace, nil)
	if err != nil {
		fail(err)
	}
	return cache.NewSharedIndexInformer(lw, &thing.Thing{}, 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file")
	namespace := flag.String("namespace", "", "namespace to watch")
	resource := flag.String("resource", "configmaps", "configmaps, secrets, deployments or things")
	flag.Parse()

	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail(err)
	}
	cfg.QPS = -1
	cfg.Burst = -1

	var informer cache.SharedIndexInformer
	if *resource == "things" {
		informer = thingInformer(cfg, *namespace)
	} else {
		client, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			fail(err)
		}
		factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(*namespace))
		switch *resource {
		case "configmaps":
			informer = factory.Core().V1().ConfigMaps().Informer()
		case "secrets":
			informer = factory.Core().V1().Secrets().Informer()
		case "deployments":
			informer = factory.Apps().V1().Deployments().Informer()
		default:
			fail(fmt.Errorf("unknown resource %q", *resource))
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go informer.Run(ctx.Done())
	for !informer.HasSynced() {
		time.Sleep(time.Millisecond)
	}
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	out, _ := json.Marshal(map[string]any{"objects": len(informer.GetStore().ListKeys()), "heapBytes": m.HeapAlloc})
	fmt.Println(string(out))
	// Held until the parent has read the RSS and closes stdin.
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
}
