"""Host-side helpers of the ``triton.tools`` package: tensor descriptors built on the host
(``triton.tools.tensor_descriptor.TensorDescriptor``)."""
