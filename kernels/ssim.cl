/* Placeholder for the ssim family. SPDX-License-Identifier: BSD-2-Clause */
