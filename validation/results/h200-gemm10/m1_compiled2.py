"""h200-compiled2's M = 1 GEMM kernels (batch-1 steps; kernel + splitKreduce durations read off the traces by shape)
against `perfmodel gemm --m 1 --impl compiled` under a calibration.

    python3 validation/results/h200-gemm10/m1_compiled2.py <calibration.yaml>   (from the repository root)
"""
import json,subprocess,sys
P='build/tools/perfmodel/perfmodel'
cal=sys.argv[1] if len(sys.argv)>1 else 'hardware/h200.calibration.yaml'
def price(n,k,impl='compiled'):
    d=json.loads(subprocess.run([P,'gemm','--card','h200','--m','1','--n',str(n),'--k',str(k),'--impl',impl,'--calibration',cal,'--format','json'],capture_output=True,text=True,check=True).stdout)
    return d['device_time_s']*1e6, d['tile'], d['split_k'], d.get('tiles')
# (model, label, n, k, measured kernel us incl reduce)
cases=[('tinyllama','q/o',2048,2048,5.659),('tinyllama','k/v',256,2048,5.295),('tinyllama','gate/up',5632,2048,8.581),('tinyllama','down',2048,5632,9.008+1.706),('tinyllama','lm',32000,2048,34.272),
('llama3','gate/up',14336,4096,31.665),('llama3','down',4096,14336,29.709+1.707),('llama3','q/o',4096,4096,11.318+1.707),('llama3','k/v',1024,4096,5.189+1.535),('llama3','lm',128256,4096,243.135),
('qwen7b','gate/up',18944,3584,38.316),('qwen7b','down',3584,18944,36.701+1.95),('qwen7b','q',3584,3584,None),('qwen7b','lm',152064,3584,255.23),
('llama2','gate/up',11008,4096,24.384),('llama2','q/k/v/o',4096,4096,10.59+1.662),('llama2','down',4096,11008,25.891+1.662),('llama2','lm',32000,4096,63.36)]
for m,l,n,k,meas in cases:
    if meas is None: continue
    t,tile,s,tiles=price(n,k)
    print(f"{m:10s} {l:8s} N{n:6d} K{k:6d} meas {meas:7.2f} pred {t:7.2f} {t/meas-1:+6.1%}  {tile} split{s} tiles{tiles}")
