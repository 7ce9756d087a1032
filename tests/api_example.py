import cv2, numpy as np, clik

ctx = clik.Context()                      # the default device (PoCL here), else the CPU
bgr = cv2.imread("build/apps/photo.jpg")  # (512, 512, 3) uint8, OpenCV's BGR order
up = ctx.upscale(bgr, 2)                  # LAPAR x2 of the BGR array as it is
cv2.imwrite("build/photo-x2.png", up)
moved = cv2.imread("build/apps/photo-moved.png")
flow = ctx.flow_tvl1(bgr, moved)          # TV-L1 on the frames' luma: (512, 512, 2) float32
truth = np.fromfile("build/apps/photo-truth.flo", np.float32, offset=12).reshape(flow.shape)
known = np.abs(truth[..., 0]) < 1e9       # 1e10: moved out of the frame
epe = np.hypot(*(flow - truth)[known].T).mean()
print(ctx.last_backend, up.shape, f"EPE {epe:.3f} px")
