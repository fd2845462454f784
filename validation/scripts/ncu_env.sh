# Sourced by the ncu_*.sh scripts: cuBLAS 13 on the library path (toolkit or pip wheel) and the
# Nsight Compute binary in $NCU.
for d in /usr/local/cuda/lib64 $(python3 -c 'import nvidia.cublas,os;print(os.path.join(nvidia.cublas.__path__[0],"lib"))' 2>/dev/null); do
  [ -e "$d/libcublas.so.13" ] && export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"
done
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
