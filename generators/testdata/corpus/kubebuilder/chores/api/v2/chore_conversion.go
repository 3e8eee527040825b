package v2

import (
	"fmt"
	"strconv"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/conversion"

	v1 "github.com/apigen-dev/apigen/generators/testdata/corpus/kubebuilder/chores/api/v1"
)

// ConvertTo converts this Chore to the Hub version (v1).
func (src *Chore) ConvertTo(dstRaw conversion.Hub) error {
	dst := dstRaw.(*v1.Chore)
	if src.Spec.Hour < 0 || src.Spec.Hour > 23 || src.Spec.Minute < 0 || src.Spec.Minute > 59 {
		return fmt.Errorf("spec.hour %d and spec.minute %d are not a time of day", src.Spec.Hour, src.Spec.Minute)
	}
	dst.ObjectMeta = src.ObjectMeta
	dst.Spec.Schedule = fmt.Sprintf("%02d:%02d", src.Spec.Hour, src.Spec.Minute)
	dst.Spec.Task = src.Spec.Task
	dst.Spec.Suspend = src.Spec.Suspend
	dst.Status.LastRun = src.Status.LastRun
	return nil
}

// ConvertFrom converts from the Hub version (v1) to this version.
func (dst *Chore) ConvertFrom(srcRaw conversion.Hub) error {
	src := srcRaw.(*v1.Chore)
	hour, minute, ok := strings.Cut(src.Spec.Schedule, ":")
	h, herr := strconv.ParseInt(hour, 10, 32)
	m, merr := strconv.ParseInt(minute, 10, 32)
	if !ok || herr != nil || merr != nil {
		return fmt.Errorf("spec.schedule %q is not a time of day HH:MM", src.Spec.Schedule)
	}
	dst.ObjectMeta = src.ObjectMeta
	dst.Spec.Hour, dst.Spec.Minute = int32(h), int32(m)
	dst.Spec.Task = src.Spec.Task
	dst.Spec.Suspend = src.Spec.Suspend
	dst.Status.LastRun = src.Status.LastRun
	return nil
}
