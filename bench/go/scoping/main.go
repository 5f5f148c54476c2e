// Command scoping is the controller-runtime peer of bench/runtime-scoping-child.js: a manager whose controller
// reconciles ConfigMaps and owns Secrets, with the Secrets cached in one of three ways, driven by
// bench/runtime-scoping.js:
//
//	scoping -kubeconfig-file F -namespace NS -mode full|metadata|selected -selector 'k=v'
//
// full caches whole Secrets; metadata watches them with builder.OnlyMetadata; selected caches only the Secrets
// matching -selector (cache.Options.ByObject). Once the cache has synced it prints {"type":"synced","heapBytes",
// "rssBytes","secrets"} after a GC, then waits for "stop" (or EOF) on stdin.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"kubescaffold.dev/bench/go/internal/proc"
)

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

func main() {
	kubeconfig := flag.String("kubeconfig-file", "", "kubeconfig file")
	namespace := flag.String("namespace", "", "namespace of the Secrets and ConfigMaps")
	mode := flag.String("mode", "full", "full, metadata or selected")
	selector := flag.String("selector", "", "label selector of the cached Secrets (mode selected)")
	flag.Parse()
	ctrl.SetLogger(logr.Discard())
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail(err)
	}
	cfg.QPS, cfg.Burst = -1, -1
	scheme := kruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		fail(err)
	}
	cacheOpts := cache.Options{DefaultNamespaces: map[string]cache.Config{*namespace: {}}}
	if *mode == "selected" {
		sel, err := labels.Parse(*selector)
		if err != nil {
			fail(err)
		}
		cacheOpts.ByObject = map[client.Object]cache.ByObject{&corev1.Secret{}: {Label: sel}}
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0", Cache: cacheOpts})
	if err != nil {
		fail(err)
	}
	owns := []builder.OwnsOption{}
	if *mode == "metadata" {
		owns = append(owns, builder.OnlyMetadata)
	}
	noop := reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil })
	if err := ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Owns(&corev1.Secret{}, owns...).Complete(noop); err != nil {
		fail(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		if !mgr.GetCache().WaitForCacheSync(ctx) {
			return
		}
		count := 0
		if *mode == "metadata" {
			var list metav1.PartialObjectMetadataList
			list.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("SecretList"))
			if err := mgr.GetClient().List(ctx, &list); err == nil {
				count = len(list.Items)
			}
		} else {
			var list corev1.SecretList
			if err := mgr.GetClient().List(ctx, &list); err == nil {
				count = len(list.Items)
			}
		}
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		out, _ := json.Marshal(map[string]any{"type": "synced", "heapBytes": m.HeapAlloc, "rssBytes": proc.RSSBytes(), "secrets": count})
		fmt.Println(string(out))
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			if strings.TrimSpace(sc.Text()) == "stop" {
				break
			}
		}
		cancel()
	}()
	if err := mgr.Start(ctx); err != nil {
		fail(err)
	}
}
