import cv2, numpy as np, clik

ctx = clik.Context()                       # the default device (PoCL here), else the CPU
bgr = cv2.imread("photo.jpg")
grey = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
equalized = ctx.hist_equalize(grey)             # cv2.equalizeHist's result, exactly
levels = ctx.pyr_gaussian(equalized, 3)          # three chained pyrDowns
flow = ctx.flow_tvl1(grey, np.roll(grey, 3, axis=1))  # TV-L1, (H, W, 2): u about 3
up = ctx.upscale_lapar(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGBA), 2)  # LAPAR x2
cv2.imwrite("photo-x2.png", cv2.cvtColor(up, cv2.COLOR_RGBA2BGR))
print(ctx.last_backend, [l.shape for l in levels], flow[..., 0].mean(), up.shape)
