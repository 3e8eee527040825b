// +groupName=order.example.com
package v1beta1
