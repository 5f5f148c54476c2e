// Command shardpeer is the controller-runtime peer of test/runtime/fixtures/sharded-replica.ts in its 'leader' mode,
// for bench/sharding.js: an active-passive (leader-elected) manager that reconciles the labelled ConfigMaps of every
// namespace, owns Secrets, and merge-patches each ConfigMap with what it saw (annotation $SHARD_DONE_KEY = data.want +
// "/" + the owned Secret's data.v) and who it is. controller-runtime has no sharding; this is the scale-out it offers.
//
// With -read-only it only reads (for the memory figures at 100,000 objects, where writing each would take an hour),
// and on SIGUSR2 it prints {"type":"stats","reconciles":N}: the reconciles it has run.
//
//	shardpeer -kubeconfig-file F -lease-namespace NS -identity ID [-lease-duration 4s] [-read-only]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

const testLabel = "shard.kubescaffold.dev/test"

type reconciler struct {
	client.Client
	identity   string
	doneKey    string
	readOnly   bool
	reconciles atomic.Int64
}

func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	r.reconciles.Add(1)
	cm := &corev1.ConfigMap{}
	if err := r.Get(ctx, req.NamespacedName, cm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	v := "-"
	secret := &corev1.Secret{}
	if err := r.Get(ctx, req.NamespacedName, secret); err == nil && len(secret.Data["v"]) > 0 {
		v = string(secret.Data["v"])
	}
	done := cm.Data["want"] + "/" + v
	if r.readOnly || cm.Annotations[r.doneKey] == done {
		return ctrl.Result{}, nil
	}
	body, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		r.doneKey: done, "shard.kubescaffold.dev/by": r.identity,
	}}})
	if err := r.Patch(ctx, cm, client.RawPatch(types.MergePatchType, body)); err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, nil
}

func main() {
	kubeconfig := flag.String("kubeconfig-file", "", "kubeconfig of the cluster")
	leaseNamespace := flag.String("lease-namespace", "", "namespace of the Lease")
	identity := flag.String("identity", "", "this replica's identity")
	leaseDuration := flag.Duration("lease-duration", 4*time.Second, "leader election lease duration")
	readOnly := flag.Bool("read-only", false, "reconcile without writing")
	flag.Parse()
	doneKey := os.Getenv("SHARD_DONE_KEY")
	if doneKey == "" {
		doneKey = "shard.kubescaffold.dev/done"
	}

	ctrl.SetLogger(logr.Discard())
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// No client-side rate limit, as our client has none (the other Go peers do the same).
	cfg.QPS, cfg.Burst = -1, -1
	req, _ := labels.NewRequirement(testLabel, selection.Exists, nil)
	selector := labels.NewSelector().Add(*req)
	renew := *leaseDuration * 3 / 4
	retry := *leaseDuration / 8
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Cache: cache.Options{ByObject: map[client.Object]cache.ByObject{
			&corev1.ConfigMap{}: {Label: selector},
			&corev1.Secret{}:    {Label: selector},
		}},
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:  "0",
		LeaderElection:          true,
		LeaderElectionID:        "crew",
		LeaderElectionNamespace: *leaseNamespace,
		LeaseDuration:           leaseDuration,
		RenewDeadline:           &renew,
		RetryPeriod:             &retry,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Fprintf(os.Stdout, "{\"type\":\"started\",\"identity\":%q}\n", *identity)
	rec := &reconciler{Client: mgr.GetClient(), identity: *identity, doneKey: doneKey, readOnly: *readOnly}
	usr2 := make(chan os.Signal, 1)
	signal.Notify(usr2, syscall.SIGUSR2)
	go func() {
		for range usr2 {
			fmt.Fprintf(os.Stdout, "{\"type\":\"stats\",\"identity\":%q,\"reconciles\":%d}\n", *identity, rec.reconciles.Load())
		}
	}()
	err = ctrl.NewControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}).
		Owns(&corev1.Secret{}).
		WithOptions(controllerOptions()).
		Complete(rec)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// controllerOptions: 4 workers, as the TypeScript replica.
func controllerOptions() controller.Options {
	return controller.Options{MaxConcurrentReconciles: 4}
}
