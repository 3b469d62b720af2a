"""Host-side helpers of the ``triton.tools`` package: tensor descriptors built on the host
(``triton.tools.tensor_descriptor.TensorDescriptor``), and
``triton.tools.experimental_descriptor`` (Triton 3.2's TMA descriptor API, present so that GPU
scripts import; making one raises ``NotImplementedError``)."""
