import cv2, numpy as np, clik

ctx = clik.Context()                      # the default device (PoCL here), else the CPU
bgr = cv2.imread("build/apps/photo.jpg")  # (512, 512, 3) uint8, OpenCV's BGR order
up = ctx.upscale(bgr, 2)                  # LAPAR x2 of the BGR array as it is
cv2.imwrite("build/photo-x2.png", up)
moved = cv2.imread("build/apps/photo-moved.png")
grey0, grey1 = (cv2.cvtColor(a, cv2.COLOR_BGR2GRAY) for a in (bgr, moved))
flow = ctx.flow_tvl1(grey0, grey1)        # TV-L1: (512, 512, 2) float32, u and v
truth = np.fromfile("build/apps/photo-truth.flo", np.float32, offset=12).reshape(flow.shape)
known = np.abs(truth[..., 0]) < 1e9       # 1e10: moved out of the frame
epe = np.hypot(*(flow - truth)[known].T).mean()
print(ctx.last_backend, up.shape, f"EPE {epe:.3f} px")
