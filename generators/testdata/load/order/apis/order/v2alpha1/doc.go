// +groupName=order.example.com
package v2alpha1
