#[allow(dead_code)]
fn offsets(&self, x: [f64; 2]) -> [f64; 2] {
    [x[0] * self.scale, x[1] - x[0]]
}
#[doc(hidden)]
#[allow(non_upper_case_globals, dead_code)]
const __offsets_active: &[bool] = &[true];
#[doc(hidden)]
#[allow(
    arithmetic_overflow,
    unconditional_panic,
    dead_code,
    unused_variables,
    unused_mut,
    unused_parens,
    unused_assignments,
    unreachable_code,
    non_snake_case,
    clippy::all,
    clippy::pedantic
)]
fn offsets_hvp_adjoint<
    '__ad_a,
    __AdP0: ::autograd::__private::dual::ArrayArg<'__ad_a, [f64; 2]>,
>(
    &self,
    x: __AdP0,
    d_out: &[::autograd::__private::Dual],
) -> [::autograd::__private::Dual; 2] {
    let (x, __ad_v_x, __ad_g_x, __ad_h_x) = ::autograd::__private::dual::ArrayArg::split(
        x,
    );
    let __ad_value_1 = Self::offsets(self, x);
    let mut __ad_dv = ::autograd::__private::zeros_like(&__ad_value_1);
    let mut __ad_dt = ::autograd::__private::zeros_like(&__ad_value_1);
    if !d_out.is_empty() {
        ::autograd::__private::check_output_len(
            "offsets_hvp_adjoint",
            stringify!(d_out),
            d_out.len(),
            __ad_value_1.len(),
        );
        for __ad_k_1 in 0..d_out.len() {
            __ad_dv[__ad_k_1] = d_out[__ad_k_1].v;
            __ad_dt[__ad_k_1] = d_out[__ad_k_1].t;
        }
    }
    let mut __ad_gd = ::autograd::__private::zeros_like(&__ad_value_1);
    let mut __ad_hd = ::autograd::__private::zeros_like(&__ad_value_1);
    Self::__ad_weighted_offsets_hvp_adjoint(
        self,
        (x, __ad_v_x, __ad_g_x, __ad_h_x),
        (&__ad_dv[..], &__ad_dt[..], &mut __ad_gd[..], &mut __ad_hd[..]),
        ::autograd::__private::Dual::constant(1.0),
    );
    ::autograd::__private::dual::zip_array(&__ad_value_1, &__ad_hd[..])
}
#[doc(hidden)]
#[doc(hidden)]
#[allow(
    arithmetic_overflow,
    unconditional_panic,
    dead_code,
    unused_variables,
    unused_mut,
    unused_parens,
    unused_assignments,
    unreachable_code,
    non_snake_case,
    clippy::all,
    clippy::pedantic
)]
fn __ad_weighted_offsets_hvp_adjoint<
    '__ad_a,
    __AdP0: ::autograd::__private::dual::ArrayArg<'__ad_a, [f64; 2]>,
    __AdP1: ::autograd::__private::dual::ArrayArg<'__ad_a, &'__ad_a [f64]>,
>(
    &self,
    x: __AdP0,
    __ad_d: __AdP1,
    d_out: ::autograd::__private::Dual,
) -> ::autograd::__private::Dual {
    let (x, v_x, d_x, hv_x) = ::autograd::__private::dual::ArrayArg::split(x);
    let (__ad_d, v___ad_d, d___ad_d, hv___ad_d) = ::autograd::__private::dual::ArrayArg::split(
        __ad_d,
    );
    let __ad_t0: ::autograd::__private::Dual = {
        let __ad_k_1: usize = 0;
        ::autograd::__private::Dual::new(
            x[__ad_k_1],
            ::autograd::__private::dual::tangent(&v_x[..], __ad_k_1),
        )
    };
    let __ad_t1: ::autograd::__private::Dual = __ad_t0 * (self.scale);
    let __ad_t2: ::autograd::__private::Dual = {
        let __ad_k_2: usize = 1;
        ::autograd::__private::Dual::new(
            x[__ad_k_2],
            ::autograd::__private::dual::tangent(&v_x[..], __ad_k_2),
        )
    };
    let __ad_t3: ::autograd::__private::Dual = __ad_t2 - __ad_t0;
    let mut __ad_out: [::autograd::__private::Dual; 2] = [
        ::autograd::__private::Dual::from(__ad_t1),
        ::autograd::__private::Dual::from(__ad_t3),
    ];
    let __ad_s: f64 = 0.0_f64;
    let mut __ad_cell___ad_s_4: ::autograd::__private::Dual = ::autograd::__private::Dual::from(
        __ad_s,
    );
    let __ad_seed_cell___ad_s_4: ::autograd::__private::Dual = ::autograd::__private::Dual::from(
        d_out,
    );
    let mut __ad_d_out = ::autograd::__private::zeros_like(&__ad_out);
    {
        let mut __ad_d_cell___ad_s_4: ::autograd::__private::Dual;
        if let (Some(__ad_row_d_out),) = (
            ::autograd::__private::row_mut(&mut __ad_d_out[..], 0usize, __ad_out.len()),
        ) {
            let __ad_n: usize = __ad_row_d_out.len();
            for __ad_k in 0..__ad_n {
                let __ad_s__1: ::autograd::__private::Dual = __ad_cell___ad_s_4;
                let __ad_t5: ::autograd::__private::Dual = {
                    let __ad_k_3: usize = __ad_k;
                    ::autograd::__private::Dual::new(
                        __ad_d[__ad_k_3],
                        ::autograd::__private::dual::tangent(&v___ad_d[..], __ad_k_3),
                    )
                };
                let __ad_t6: ::autograd::__private::Dual = __ad_out[__ad_k];
                let __ad_t7: ::autograd::__private::Dual = __ad_t5 * __ad_t6;
                let __ad_s__2: ::autograd::__private::Dual = __ad_s__1 + __ad_t7;
                __ad_cell___ad_s_4 = __ad_s__2;
                __ad_d_cell___ad_s_4 = __ad_seed_cell___ad_s_4;
                let mut __ad_d_s__2: ::autograd::__private::Dual = __ad_d_cell___ad_s_4;
                __ad_d_cell___ad_s_4 = ::autograd::__private::Dual::constant(0.0);
                let __ad_p_s__2 = ::autograd::__private::dual::constant_partials::add(
                    __ad_s__1,
                    __ad_t7,
                    __ad_s__2,
                );
                let mut __ad_d_s__1: ::autograd::__private::Dual = __ad_d_s__2
                    * __ad_p_s__2.0;
                let mut __ad_d_t7: ::autograd::__private::Dual = __ad_d_s__2
                    * __ad_p_s__2.1;
                let __ad_p_t7 = ::autograd::__private::dual::rules::mul(
                    __ad_t5,
                    __ad_t6,
                    __ad_t7,
                );
                let mut __ad_d_t5: ::autograd::__private::Dual = __ad_d_t7 * __ad_p_t7.0;
                let mut __ad_d_t6: ::autograd::__private::Dual = __ad_d_t7 * __ad_p_t7.1;
                __ad_row_d_out[__ad_k] += __ad_d_t6;
                let __ad_i: usize = __ad_k;
                ::autograd::__private::dual::accumulate(
                    &mut d___ad_d[..],
                    &mut hv___ad_d[..],
                    __ad_i,
                    __ad_d_t5,
                );
                __ad_d_cell___ad_s_4 += __ad_d_s__1;
            }
        } else {
            for __ad_k in 0..__ad_out.len() {
                let __ad_s__1: ::autograd::__private::Dual = __ad_cell___ad_s_4;
                let __ad_t5: ::autograd::__private::Dual = {
                    let __ad_k_3: usize = __ad_k;
                    ::autograd::__private::Dual::new(
                        __ad_d[__ad_k_3],
                        ::autograd::__private::dual::tangent(&v___ad_d[..], __ad_k_3),
                    )
                };
                let __ad_t6: ::autograd::__private::Dual = __ad_out[__ad_k];
                let __ad_t7: ::autograd::__private::Dual = __ad_t5 * __ad_t6;
                let __ad_s__2: ::autograd::__private::Dual = __ad_s__1 + __ad_t7;
                __ad_cell___ad_s_4 = __ad_s__2;
                __ad_d_cell___ad_s_4 = __ad_seed_cell___ad_s_4;
                let mut __ad_d_s__2: ::autograd::__private::Dual = __ad_d_cell___ad_s_4;
                __ad_d_cell___ad_s_4 = ::autograd::__private::Dual::constant(0.0);
                let __ad_p_s__2 = ::autograd::__private::dual::constant_partials::add(
                    __ad_s__1,
                    __ad_t7,
                    __ad_s__2,
                );
                let mut __ad_d_s__1: ::autograd::__private::Dual = __ad_d_s__2
                    * __ad_p_s__2.0;
                let mut __ad_d_t7: ::autograd::__private::Dual = __ad_d_s__2
                    * __ad_p_s__2.1;
                let __ad_p_t7 = ::autograd::__private::dual::rules::mul(
                    __ad_t5,
                    __ad_t6,
                    __ad_t7,
                );
                let mut __ad_d_t5: ::autograd::__private::Dual = __ad_d_t7 * __ad_p_t7.0;
                let mut __ad_d_t6: ::autograd::__private::Dual = __ad_d_t7 * __ad_p_t7.1;
                __ad_d_out[__ad_k] += __ad_d_t6;
                let __ad_i: usize = __ad_k;
                ::autograd::__private::dual::accumulate(
                    &mut d___ad_d[..],
                    &mut hv___ad_d[..],
                    __ad_i,
                    __ad_d_t5,
                );
                __ad_d_cell___ad_s_4 += __ad_d_s__1;
            }
        }
    }
    let __ad_s__3: ::autograd::__private::Dual = __ad_cell___ad_s_4;
    let mut __ad_d_s__3: ::autograd::__private::Dual = d_out;
    let mut __ad_d_cell___ad_s_4: ::autograd::__private::Dual = ::autograd::__private::Dual::constant(
        0.0,
    );
    __ad_d_cell___ad_s_4 += __ad_d_s__3;
    let mut __ad_d_t1: ::autograd::__private::Dual = __ad_d_out[0];
    let mut __ad_d_t3: ::autograd::__private::Dual = __ad_d_out[1];
    let __ad_p_t3 = ::autograd::__private::dual::constant_partials::sub(
        __ad_t2,
        __ad_t0,
        __ad_t3,
    );
    let mut __ad_d_t2: ::autograd::__private::Dual = __ad_d_t3 * __ad_p_t3.0;
    let mut __ad_d_t0: ::autograd::__private::Dual = __ad_d_t3 * __ad_p_t3.1;
    let __ad_i_1: usize = 1;
    ::autograd::__private::dual::accumulate(
        &mut d_x[..],
        &mut hv_x[..],
        __ad_i_1,
        __ad_d_t2,
    );
    __ad_d_t0
        += __ad_d_t1
            * ::autograd::__private::dual::constant_partials::mul(
                    __ad_t0,
                    (self.scale),
                    __ad_t1,
                )
                .0;
    let __ad_i_2: usize = 0;
    ::autograd::__private::dual::accumulate(
        &mut d_x[..],
        &mut hv_x[..],
        __ad_i_2,
        __ad_d_t0,
    );
    __ad_s__3
}
#[doc(hidden)]
/// Reverse-mode adjoint of `__ad_weighted_offsets`, generated by `#[differentiable]`: returns the value of `__ad_weighted_offsets` and adds `d_out` times its partial derivative with respect to each of `x` into the matching `d_` argument.
#[allow(
    arithmetic_overflow,
    unconditional_panic,
    dead_code,
    unused_variables,
    unused_mut,
    unused_parens,
    unused_assignments,
    unreachable_code,
    non_snake_case,
    clippy::all,
    clippy::pedantic
)]
fn __ad_weighted_offsets_adjoint(
    &self,
    x: [f64; 2],
    __ad_d: &[f64],
    __ad_value_slot: &mut ::core::option::Option<[f64; 2]>,
    d_out: f64,
    d_x: &mut [f64; 2],
) -> f64 {
    let __ad_t0 = x[0];
    let __ad_t1 = __ad_t0 * (self.scale);
    let __ad_t2 = x[1];
    let __ad_t3 = __ad_t2 - __ad_t0;
    let mut __ad_out: [f64; 2] = [__ad_t1, __ad_t3];
    if __ad_value_slot.is_none() {
        ::autograd::__private::check_output_len(
            "offsets_adjoint",
            stringify!(d_out),
            __ad_d.len(),
            __ad_out.len(),
        );
        *__ad_value_slot = ::core::option::Option::Some(
            ::core::clone::Clone::clone(&__ad_out),
        );
    }
    let __ad_s: f64 = 0.0_f64;
    let mut __ad_cell___ad_s_4 = __ad_s;
    let __ad_seed_cell___ad_s_4: f64 = d_out;
    let mut __ad_d_out = ::autograd::__private::zeros_like(&__ad_out);
    {
        let mut __ad_d_cell___ad_s_4: f64;
        if let (Some(__ad_row_d), Some(__ad_row_d_out)) = (
            ::autograd::__private::row(&__ad_d[..], 0usize, __ad_out.len()),
            ::autograd::__private::row_mut(&mut __ad_d_out[..], 0usize, __ad_out.len()),
        ) {
            let __ad_n: usize = ::core::cmp::min(__ad_row_d.len(), __ad_row_d_out.len());
            for __ad_k in 0..__ad_n {
                let __ad_s__1 = __ad_cell___ad_s_4;
                let __ad_t5 = __ad_out[__ad_k];
                let __ad_t6 = (__ad_row_d[__ad_k]) * __ad_t5;
                let __ad_s__2 = __ad_s__1 + __ad_t6;
                __ad_cell___ad_s_4 = __ad_s__2;
                __ad_d_cell___ad_s_4 = __ad_seed_cell___ad_s_4;
                let mut __ad_d_s__2: f64 = __ad_d_cell___ad_s_4;
                __ad_d_cell___ad_s_4 = 0.0;
                let __ad_p_s__2 = ::autograd::__private::rules::add(0.0, 0.0, 0.0);
                let mut __ad_d_s__1: f64 = __ad_d_s__2 * __ad_p_s__2.0;
                let mut __ad_d_t6: f64 = __ad_d_s__2 * __ad_p_s__2.1;
                let mut __ad_d_t5: f64 = __ad_d_t6
                    * ::autograd::__private::rules::mul((__ad_row_d[__ad_k]), 0.0, 0.0)
                        .1;
                __ad_row_d_out[__ad_k] += __ad_d_t5;
                __ad_d_cell___ad_s_4 = __ad_d_s__1;
            }
        } else {
            for __ad_k in 0..__ad_out.len() {
                let __ad_s__1 = __ad_cell___ad_s_4;
                let __ad_t5 = __ad_out[__ad_k];
                let __ad_t6 = (__ad_d[__ad_k]) * __ad_t5;
                let __ad_s__2 = __ad_s__1 + __ad_t6;
                __ad_cell___ad_s_4 = __ad_s__2;
                __ad_d_cell___ad_s_4 = __ad_seed_cell___ad_s_4;
                let mut __ad_d_s__2: f64 = __ad_d_cell___ad_s_4;
                __ad_d_cell___ad_s_4 = 0.0;
                let __ad_p_s__2 = ::autograd::__private::rules::add(0.0, 0.0, 0.0);
                let mut __ad_d_s__1: f64 = __ad_d_s__2 * __ad_p_s__2.0;
                let mut __ad_d_t6: f64 = __ad_d_s__2 * __ad_p_s__2.1;
                let mut __ad_d_t5: f64 = __ad_d_t6
                    * ::autograd::__private::rules::mul((__ad_d[__ad_k]), 0.0, 0.0).1;
                __ad_d_out[__ad_k] += __ad_d_t5;
                __ad_d_cell___ad_s_4 = __ad_d_s__1;
            }
        }
    }
    let __ad_s__3 = __ad_cell___ad_s_4;
    let mut __ad_d_s__3: f64 = d_out;
    let mut __ad_d_cell___ad_s_4: f64 = 0.0;
    __ad_d_cell___ad_s_4 += __ad_d_s__3;
    let mut __ad_d_t1: f64 = __ad_d_out[0];
    let mut __ad_d_t3: f64 = __ad_d_out[1];
    let __ad_p_t3 = ::autograd::__private::rules::sub(0.0, 0.0, 0.0);
    let mut __ad_d_t2: f64 = __ad_d_t3 * __ad_p_t3.0;
    let mut __ad_d_t0: f64 = __ad_d_t3 * __ad_p_t3.1;
    d_x[1] += __ad_d_t2;
    __ad_d_t0 += __ad_d_t1 * ::autograd::__private::rules::mul(0.0, (self.scale), 0.0).0;
    d_x[0] += __ad_d_t0;
    __ad_s__3
}
#[allow(
    arithmetic_overflow,
    unconditional_panic,
    dead_code,
    unused_variables,
    unused_mut,
    unused_parens,
    unused_assignments,
    unreachable_code,
    non_snake_case,
    clippy::all,
    clippy::pedantic
)]
fn __ad_jvp_offsets(
    &self,
    x: [f64; 2],
    __ad_d: &[f64],
    __ad_dir_x: [f64; 2],
    __ad_columns: &mut [f64],
    __ad_n_1: usize,
    __ad_j: usize,
    __ad_scratch: &mut [f64],
) {
    let _: f64 = {
        let __ad_t0 = x[0];
        let __ad_dot_t0 = __ad_dir_x[0];
        let __ad_t1 = __ad_t0 * (self.scale);
        let __ad_dot_t1 = ::autograd::__private::rules::mul(0.0, (self.scale), 0.0).0
            * __ad_dot_t0;
        let __ad_t2 = x[1];
        let __ad_dot_t2 = __ad_dir_x[1];
        let __ad_t3 = __ad_t2 - __ad_t0;
        let __ad_p_t3 = ::autograd::__private::rules::sub(0.0, 0.0, 0.0);
        let __ad_dot_t3 = __ad_p_t3.0 * __ad_dot_t2 + __ad_p_t3.1 * __ad_dot_t0;
        ::autograd::__private::jacobian_column(
            __ad_columns,
            __ad_n_1,
            __ad_j,
            &[__ad_dot_t1, __ad_dot_t3][..],
        );
        return;
        let mut __ad_out: [f64; 2] = [__ad_t1, __ad_t3];
        let mut __ad_dot_out = [__ad_dot_t1, __ad_dot_t3];
        let __ad_s: f64 = 0.0_f64;
        let mut __ad_cell___ad_s_4 = __ad_s;
        let mut __ad_dot_cell___ad_s_4: f64 = 0.0_f64;
        for __ad_k in 0..__ad_out.len() {
            let __ad_s__1 = __ad_cell___ad_s_4;
            let __ad_dot_s__1 = __ad_dot_cell___ad_s_4;
            let __ad_t5 = __ad_out[__ad_k];
            let __ad_dot_t5 = __ad_dot_out[__ad_k];
            let __ad_t6 = (__ad_d[__ad_k]) * __ad_t5;
            let __ad_dot_t6 = ::autograd::__private::rules::mul(
                    (__ad_d[__ad_k]),
                    0.0,
                    0.0,
                )
                .1 * __ad_dot_t5;
            let __ad_s__2 = __ad_s__1 + __ad_t6;
            let __ad_p_s__2 = ::autograd::__private::rules::add(0.0, 0.0, 0.0);
            let __ad_dot_s__2 = __ad_p_s__2.0 * __ad_dot_s__1
                + __ad_p_s__2.1 * __ad_dot_t6;
            __ad_cell___ad_s_4 = __ad_s__2;
            __ad_dot_cell___ad_s_4 = __ad_dot_s__2;
        }
        let __ad_s__3 = __ad_cell___ad_s_4;
        let __ad_dot_s__3 = __ad_dot_cell___ad_s_4;
        __ad_s__3
    };
}
///Vector-Jacobian product of `offsets`, generated by `#[differentiable]`: returns the value of `offsets` and adds `d_outᵀ · ∂offsets/∂p` into the `d_` argument of each of `x` (`d_out` has one entry per output; another length panics). One reverse sweep.
#[allow(
    arithmetic_overflow,
    unconditional_panic,
    dead_code,
    unused_variables,
    unused_mut,
    unused_parens,
    unused_assignments,
    unreachable_code,
    non_snake_case,
    clippy::all,
    clippy::pedantic
)]
fn offsets_adjoint(&self, x: [f64; 2], d_out: &[f64], d_x: &mut [f64; 2]) -> [f64; 2] {
    let mut __ad_kept = ::core::option::Option::None;
    Self::__ad_weighted_offsets_adjoint(self, x, d_out, &mut __ad_kept, 1.0_f64, d_x);
    ::autograd::__private::kept(__ad_kept)
}
///The value of `offsets` and its Jacobian, generated by `#[differentiable]`: row-major `m × n`, one row per output, one column per active float (`x`, flattened in parameter order). Computed by columns in forward mode (one forward sweep per active float: there are no more of them than outputs). Allocates only the returned buffers and what `offsets` itself allocates.
#[allow(
    arithmetic_overflow,
    unconditional_panic,
    dead_code,
    unused_variables,
    unused_mut,
    unused_parens,
    unused_assignments,
    unreachable_code,
    non_snake_case,
    clippy::all,
    clippy::pedantic
)]
fn offsets_jacobian(&self, x: [f64; 2]) -> ([f64; 2], ::std::vec::Vec<f64>) {
    let __ad_value = Self::offsets(self, x);
    let __ad_m = __ad_value.len();
    let __ad_n: usize = 0 + (2);
    let mut __ad_jacobian = ::autograd::__private::zeros(__ad_m * __ad_n + 2 * __ad_n);
    {
        let (__ad_columns, __ad_dir) = __ad_jacobian.split_at_mut(__ad_m * __ad_n);
        let (__ad_dir, __ad_scratch) = __ad_dir.split_at_mut(__ad_n);
        for __ad_i in 0..__ad_n {
            __ad_dir[__ad_i] = 1.0;
            {
                let __ad_rest: &[f64] = &*__ad_dir;
                let (__ad_dir_x, __ad_rest) = __ad_rest.split_at(2);
                let __ad_dir_x: [f64; 2] = *::autograd::__private::dual::as_array(
                    __ad_dir_x,
                );
                Self::__ad_jvp_offsets(
                    self,
                    x,
                    &__ad_value[..],
                    __ad_dir_x,
                    &mut *__ad_columns,
                    __ad_n,
                    __ad_i,
                    &mut *__ad_scratch,
                );
            }
            __ad_dir[__ad_i] = 0.0;
        }
    }
    __ad_jacobian.truncate(__ad_m * __ad_n);
    (__ad_value, __ad_jacobian)
}
