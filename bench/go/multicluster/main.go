// Command multicluster is the multicluster-runtime peer of bench/multicluster-child.js, driven by bench/multicluster.js
// over a line protocol both implement: a multi-cluster manager whose kubeconfig provider engages one cluster per
// Secret labelled sigs.k8s.io/multicluster-runtime-kubeconfig=true in -secret-namespace of the -kubeconfig-file's
// cluster, and one controller for ConfigMaps in -namespace of every engaged cluster (each cluster caches that
// namespace only), whose reconciler reads the ConfigMap from its cluster's cache and writes nothing.
//
//	multicluster -kubeconfig-file F -secret-namespace SNS -namespace NS [-expect N]
//
// stdout (JSON lines, `at` is this process's clock in ms since the epoch): {"type":"started","at"} as the manager
// runs; {"type":"first","cluster","at"} at the first reconcile in each cluster; with -expect, {"type":"throughput",
// "reconciles","firstToLastMs"} once N distinct cluster/namespace/name keys have been reconciled.
// stdin: "rss" → {"type":"rss","rssBytes","heapBytes","clusters"} after a GC; "stop" or EOF stops the manager.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/kubeconfig"

	"kubescaffold.dev/bench/go/internal/proc"
)

var (
	outMu sync.Mutex
	out   = json.NewEncoder(os.Stdout)
)

func emit(v map[string]any) {
	outMu.Lock()
	defer outMu.Unlock()
	_ = out.Encode(v)
}

func nowMs() float64 { return float64(time.Now().UnixMicro()) / 1000 }

func main() {
	kubeconfigFile := flag.String("kubeconfig-file", "", "kubeconfig of the cluster holding the kubeconfig Secrets")
	secretNamespace := flag.String("secret-namespace", "", "namespace of the kubeconfig Secrets")
	namespace := flag.String("namespace", "", "namespace whose ConfigMaps are reconciled in every cluster")
	expect := flag.Int("expect", 0, "print a throughput line once this many distinct objects are reconciled")
	flag.Parse()
	ctrl.SetLogger(logr.Discard())
	klog.SetLogger(logr.Discard())
	if err := run(*kubeconfigFile, *secretNamespace, *namespace, *expect); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(kubeconfigFile, secretNamespace, namespace string, expect int) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfigFile)
	if err != nil {
		return err
	}
	provider := kubeconfig.New(kubeconfig.Options{
		Namespace: secretNamespace,
		ClusterOptions: []cluster.Option{func(o *cluster.Options) {
			o.Cache.DefaultNamespaces = map[string]cache.Config{namespace: {}}
		}},
	})
	mgr, err := mcmanager.New(cfg, provider, manager.Options{
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// The local manager watches only the Secrets' namespace, as ours does.
		Cache: cache.Options{DefaultNamespaces: map[string]cache.Config{secretNamespace: {}}},
	})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := provider.SetupWithManager(ctx, mgr); err != nil {
		return err
	}

	var mu sync.Mutex
	seen := map[string]bool{}
	firstIn := map[string]bool{}
	var first time.Time
	reported := false
	err = mcbuilder.ControllerManagedBy(mgr).
		Named("bench-multicluster").
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			cl, err := mgr.GetCluster(ctx, req.ClusterName)
			if err != nil {
				return ctrl.Result{}, err
			}
			cm := &corev1.ConfigMap{}
			if err := cl.GetClient().Get(ctx, req.NamespacedName, cm); err != nil && !apierrors.IsNotFound(err) {
				return ctrl.Result{}, err
			}
			name := string(req.ClusterName)
			mu.Lock()
			defer mu.Unlock()
			if !firstIn[name] {
				firstIn[name] = true
				emit(map[string]any{"type": "first", "cluster": name, "at": nowMs()})
			}
			if first.IsZero() {
				first = time.Now()
			}
			seen[name+"/"+req.Namespace+"/"+req.Name] = true
			if expect > 0 && !reported && len(seen) >= expect {
				reported = true
				emit(map[string]any{"type": "throughput", "reconciles": len(seen), "firstToLastMs": float64(time.Since(first).Microseconds()) / 1000})
			}
			return ctrl.Result{}, nil
		}))
	if err != nil {
		return err
	}

	go func() {
		scanner := bufio.NewScanner(os.Stdin)
		for scanner.Scan() {
			switch scanner.Text() {
			case "rss":
				runtime.GC()
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				mu.Lock()
				clusters := len(firstIn)
				mu.Unlock()
				emit(map[string]any{"type": "rss", "rssBytes": proc.RSSBytes(), "heapBytes": m.HeapAlloc, "clusters": clusters})
			case "stop":
				cancel()
				return
			}
		}
		cancel()
	}()
	emit(map[string]any{"type": "started", "at": nowMs()})
	return mgr.Start(ctx)
}
