package thing

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// ListWatch is what a generated clientset's informer builds for the Things of a namespace, decoding into this
// package's structs. onCall, when not nil, hears each call: true for a list, false for a watch.
func ListWatch(cfg *rest.Config, namespace string, onCall func(list bool)) (cache.ListerWatcher, error) {
	scheme := kruntime.NewScheme()
	if err := AddToScheme(scheme); err != nil {
		return nil, err
	}
	rc := rest.CopyConfig(cfg)
	rc.GroupVersion = &GroupVersion
	rc.APIPath = "/apis"
	rc.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	client, err := rest.RESTClientFor(rc)
	if err != nil {
		return nil, err
	}
	heard := func(list bool) {
		if onCall != nil {
			onCall(list)
		}
	}
	return cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (kruntime.Object, error) {
			heard(true)
			out := &ThingList{}
			err := client.Get().Namespace(namespace).Resource("things").VersionedParams(&o, metav1.ParameterCodec).Do(ctx).Into(out)
			return out, err
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			heard(false)
			o.Watch = true
			return client.Get().Namespace(namespace).Resource("things").VersionedParams(&o, metav1.ParameterCodec).Watch(ctx)
		},
	}, client), nil
}
