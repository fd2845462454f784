"""h200-compiled2's kernel sums by group (cuBLASLt GEMMs, cuDNN SDPA, Triton, other) against `perfmodel decode
--impl compiled` of the cut model: where each step's kernel-sum error sits. Uses the default calibration.

    python3 validation/results/h200-gemm10/compiled2_categories.py   (from the repository root)
"""
import json,subprocess,sys,tempfile,os
sys.path.insert(0,'validation/scripts/production')
from compare_compiled import cut_model
P='build/tools/perfmodel/perfmodel'
def mcat(n):
    if 'nvjet' in n or 'splitKreduce' in n or 'gemm' in n.lower(): return 'gemm'
    if 'sdpa' in n or 'lean_reduction' in n: return 'sdpa'
    if n.startswith('triton'): return 'triton'
    return 'other'
def pcat(o):
    if o['kernel']=='gemm': return 'gemm'
    if o['name'].endswith('.sdpa'): return 'sdpa'
    return 'triton'
with tempfile.TemporaryDirectory() as tmp:
  for line in open('validation/results/h200-compiled2/compiled2.jsonl'):
    s=json.loads(line)
    m=cut_model(s['model'],s['layers'],tmp)
    d=json.loads(subprocess.run([P,'decode','--model',m,'--card','h200','--batch',str(s['batch']),'--ctx',str(s['kv_len']),'--impl','compiled','--format','json'],capture_output=True,text=True,check=True).stdout)
    mc={};pc={}
    for n,dur,*_ in s['trace']: mc[mcat(n)]=mc.get(mcat(n),0)+dur
    for o in d['ops']: pc[pcat(o)]=pc.get(pcat(o),0)+o['device_time_s']*1e6
    tot=s['kernel_s']*1e6
    print(f"{s['model'][:10]:10s} L{s['layers']} b{s['batch']:3d} tot {d['step']['device_time_s']*1e6/tot-1:+.2%} | "+" ".join(f"{c} {mc.get(c,0):7.0f}/{pc.get(c,0):7.0f} ({(pc.get(c,0)-mc.get(c,0))/tot:+.2%})" for c in ['gemm','sdpa','triton','other']))
